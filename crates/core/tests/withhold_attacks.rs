//! Red-team attacks on `withhold_blocked_lines` (issue 31). Every output below was printed by a
//! real tool (GNU grep 3.8, ripgrep 13, git 2.47, GNU diffutils 3.8) over a fixture tree with
//! blocked `.env`, `config-2024-01/.env`, `secrets/k.txt`, `my dir/secrets/my key.txt` and
//! allowed `src/app.ts`, `docs/readme.md`, `readme`. Every blocked file's content holds `SECRET`
//! (or the `.env` line `START=12:30:00`); none of it may survive. Lines of allowed files listed
//! in `keep` must survive (no plainly wrong over-withholding). Where a format prints a file's
//! lines unmarked (side by side, ed, `head`'s banners, word diffs), a blocked file's section
//! runs on to the end of the output: the doubt withholds, so `keep` lists only lines before it.

mod withhold_harness;

use withhold_harness::check;

/// `grep -rn KEY .`, captured from the real tool.
#[test]
fn grep_rn() {
    check(
        "grep -rn KEY .",
        "./.env:1:API_KEY=sk-live-SECRET3 \n./src/app.ts:1:const key = process.env.API_KEY // v2\n./config-2024-01/.env:1:API_KEY=SECRET-dated\n./docs/readme.md:1:API_KEY docs\n",
        &[
            "./src/app.ts:1:const key",
            "./docs/readme.md:1:API_KEY docs",
        ],
    );
}

/// `grep -r TOKEN .  (path with spaces, no -n)`, captured from the real tool.
#[test]
fn grep_r() {
    check(
        "grep -r TOKEN .  (path with spaces, no -n)",
        "./my dir/secrets/my key.txt:TOKEN=SECRET-spaced\n./secrets/k.txt:TOKEN=SECRET-token2   \n",
        &[],
    );
}

/// `grep -rn -A2 API_KEY .`, captured from the real tool.
#[test]
fn grep_rn_ctx() {
    check(
        "grep -rn -A2 API_KEY .",
        "./.env:1:API_KEY=sk-live-SECRET3 \n./.env-2-START=12:30:00\n./.env-3-OTHER=SECRET-x\n--\n./src/app.ts:1:const key = process.env.API_KEY // v2\n./src/app.ts-2-export default key\n--\n./config-2024-01/.env:1:API_KEY=SECRET-dated\n./config-2024-01/.env-2-OTHER=SECRET-ctx\n--\n./docs/readme.md:1:API_KEY docs\n",
        &[
            "./src/app.ts-2-export default key",
            "./docs/readme.md:1:API_KEY docs",
        ],
    );
}

/// `grep -rn --color=always -A1 API_KEY .`, captured from the real tool.
#[test]
fn grep_color() {
    check(
        "grep -rn --color=always -A1 API_KEY .",
        "\x1b[35m\x1b[K./.env\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K1\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[01;31m\x1b[KAPI_KEY\x1b[m\x1b[K=sk-live-SECRET3 \n\x1b[35m\x1b[K./.env\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[K\x1b[32m\x1b[K2\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[KSTART=12:30:00\n\x1b[36m\x1b[K--\x1b[m\x1b[K\n\x1b[35m\x1b[K./src/app.ts\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K1\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[Kconst key = process.env.\x1b[01;31m\x1b[KAPI_KEY\x1b[m\x1b[K // v2\n\x1b[35m\x1b[K./src/app.ts\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[K\x1b[32m\x1b[K2\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[Kexport default key\n\x1b[36m\x1b[K--\x1b[m\x1b[K\n\x1b[35m\x1b[K./config-2024-01/.env\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K1\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[01;31m\x1b[KAPI_KEY\x1b[m\x1b[K=SECRET-dated\n\x1b[35m\x1b[K./config-2024-01/.env\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[K\x1b[32m\x1b[K2\x1b[m\x1b[K\x1b[36m\x1b[K-\x1b[m\x1b[KOTHER=SECRET-ctx\n\x1b[36m\x1b[K--\x1b[m\x1b[K\n\x1b[35m\x1b[K./docs/readme.md\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K1\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[01;31m\x1b[KAPI_KEY\x1b[m\x1b[K docs\n",
        &["export default key"],
    );
}

/// `grep -rnT TOKEN .`, captured from the real tool.
#[test]
fn grep_tab_aligned() {
    check(
        "grep -rnT TOKEN .",
        "./my dir/secrets/my key.txt: 1:\tTOKEN=SECRET-spaced\n./secrets/k.txt: 1:\tTOKEN=SECRET-token2   \n",
        &[],
    );
}

/// `grep -rT TOKEN .`, captured from the real tool.
#[test]
fn grep_tab_aligned_without_line_numbers() {
    check(
        "grep -rT TOKEN .",
        "./my dir/secrets/my key.txt:\tTOKEN=SECRET-spaced\n./secrets/k.txt:\tTOKEN=SECRET-token2   \n",
        &[],
    );
}

/// `grep -rn -A1 '<<<<' .`, captured from the real tool.
#[test]
fn grep_conflict() {
    check(
        "grep -rn -A1 '<<<<' .",
        "./.env:1:<<<<<<< HEAD\n./.env-2-API_KEY=SECRET-main\n",
        &[],
    );
}

/// `git grep KEY HEAD`, captured from the real tool.
#[test]
fn git_grep() {
    check(
        "git grep KEY HEAD",
        "HEAD:.env:API_KEY=sk-live-SECRET2\nHEAD:config-2024-01/.env:API_KEY=SECRET-dated\nHEAD:docs/readme.md:API_KEY docs\nHEAD:src/app.ts:const key = process.env.API_KEY // v2\n",
        &[
            "HEAD:src/app.ts:const key",
            "HEAD:docs/readme.md:API_KEY docs",
        ],
    );
}

/// `git grep -n KEY HEAD~1`, captured from the real tool.
#[test]
fn git_grep_n() {
    check(
        "git grep -n KEY HEAD~1",
        "HEAD~1:.env:1:API_KEY=sk-live-SECRET\nHEAD~1:config-2024-01/.env:1:API_KEY=SECRET-dated\nHEAD~1:docs/readme.md:1:API_KEY docs\nHEAD~1:src/app.ts:1:const key = process.env.API_KEY\n",
        &["HEAD~1:src/app.ts:1:const key"],
    );
}

/// `git grep -n --heading --break SECRET`, captured from the real tool.
#[test]
fn git_grep_heading() {
    check(
        "git grep -n --heading --break SECRET",
        ".env\n1:API_KEY=sk-live-SECRET3 \n3:OTHER=SECRET-x\n\nconfig-2024-01/.env\n1:API_KEY=SECRET-dated\n2:OTHER=SECRET-ctx\n\nmy dir/secrets/my key.txt\n1:TOKEN=SECRET-spaced\n\nsecrets/k.txt\n1:TOKEN=SECRET-token2   \n",
        &[],
    );
}

/// `git grep -n -p OTHER`, captured from the real tool.
#[test]
fn git_grep_p() {
    check(
        "git grep -n -p OTHER",
        ".env=2=START=12:30:00\n.env:3:OTHER=SECRET-x\nconfig-2024-01/.env=1=API_KEY=SECRET-dated\nconfig-2024-01/.env:2:OTHER=SECRET-ctx\n",
        &[],
    );
}

/// `git diff`, captured from the real tool.
#[test]
fn git_diff() {
    check(
        "git diff",
        "diff --git a/.env b/.env\nindex 5f96f57..9e32d54 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET2\n+API_KEY=sk-live-SECRET3 \n START=12:30:00\n OTHER=SECRET-x\n",
        &[],
    );
}

/// `git diff --color=always REV -- .env`, captured from the real tool.
#[test]
fn git_diff_color() {
    check(
        "git diff --color=always REV -- .env",
        "\x1b[1mdiff --git a/.env b/.env\x1b[m\n\x1b[1mindex 4bfd5d5..de54bc8 100644\x1b[m\n\x1b[1m--- a/.env\x1b[m\n\x1b[1m+++ b/.env\x1b[m\n\x1b[36m@@ -1,3 +1,3 @@\x1b[m\n\x1b[31m-API_KEY=sk-live-SECRET\x1b[m\n\x1b[32m+\x1b[m\x1b[32mAPI_KEY=SECRET-side\x1b[m\n START=12:30:00\x1b[m\n\x1b[31m-OTHER=x\x1b[m\n\x1b[32m+\x1b[m\x1b[32mOTHER=SECRET-x\x1b[m\n",
        &[],
    );
}

/// `git diff --check`, captured from the real tool.
#[test]
fn git_diff_check() {
    check(
        "git diff --check",
        ".env:1: trailing whitespace.\n+API_KEY=sk-live-SECRET3 \n",
        &[],
    );
}

/// `git diff --word-diff`, captured from the real tool.
#[test]
fn git_word_diff() {
    check(
        "git diff --word-diff",
        "diff --git a/.env b/.env\nindex 5f96f57..9e32d54 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n[-API_KEY=sk-live-SECRET2-]{+API_KEY=sk-live-SECRET3+} \nSTART=12:30:00\nOTHER=SECRET-x\n",
        &[],
    );
}

/// `git diff --word-diff=porcelain`, captured from the real tool.
#[test]
fn git_word_diff_porc() {
    check(
        "git diff --word-diff=porcelain",
        "diff --git a/.env b/.env\nindex 5f96f57..9e32d54 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET2\n+API_KEY=sk-live-SECRET3\n  \n~\n START=12:30:00\n~\n OTHER=SECRET-x\n~\n",
        &[],
    );
}

/// `git diff --color-words`, captured from the real tool.
#[test]
fn git_color_words() {
    check(
        "git diff --color-words",
        "\x1b[1mdiff --git a/.env b/.env\x1b[m\n\x1b[1mindex 5f96f57..9e32d54 100644\x1b[m\n\x1b[1m--- a/.env\x1b[m\n\x1b[1m+++ b/.env\x1b[m\n\x1b[36m@@ -1,3 +1,3 @@\x1b[m\n\x1b[31mAPI_KEY=sk-live-SECRET2\x1b[m\x1b[32mAPI_KEY=sk-live-SECRET3\x1b[m \nSTART=12:30:00\x1b[m\nOTHER=SECRET-x\x1b[m\n",
        &[],
    );
}

/// `git diff (during a merge conflict, diff --cc)`, captured from the real tool.
#[test]
fn git_diff_conflict() {
    check(
        "git diff (during a merge conflict, diff --cc)",
        "diff --cc .env\nindex 799f295,de54bc8..0000000\n--- a/.env\n+++ b/.env\n@@@ -1,3 -1,3 +1,7 @@@\n++<<<<<<< HEAD\n +API_KEY=SECRET-main\n++=======\n+ API_KEY=SECRET-side\n++>>>>>>> side\n  START=12:30:00\n  OTHER=SECRET-x\n",
        &[],
    );
}

/// `git diff --stat`, captured from the real tool.
#[test]
fn git_diff_stat() {
    check(
        "git diff --stat",
        " .env | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n",
        &[" .env | 2 +-"],
    );
}

/// `git -c diff.mnemonicPrefix=true diff HEAD~1 -- secrets`, captured from the real tool.
#[test]
fn git_diff_mnemonic() {
    check(
        "git -c diff.mnemonicPrefix=true diff HEAD~1 -- secrets",
        "diff --git c/secrets/k.txt w/secrets/k.txt\nindex 2d24394..bc9a9be 100644\n--- c/secrets/k.txt\n+++ w/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2   \n",
        &[],
    );
}

/// `git log -p`, captured from the real tool.
#[test]
fn git_log_p() {
    check(
        "git log -p",
        "commit 1d5eba43574506afb959e0835577f21fdd368d36\nAuthor: A <a@b>\nDate:   Sun Dec 6 08:40:03 2026 +0000\n\n    second\n\ndiff --git a/.env b/.env\nindex 4bfd5d5..5f96f57 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\ndiff --git a/secrets/k.txt b/secrets/k.txt\nindex 2d24394..bc9a9be 100644\n--- a/secrets/k.txt\n+++ b/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2   \ndiff --git a/src/app.ts b/src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n export default key\n\ncommit d690d7cf262cb0a303dad10feadbef841901ab20\nAuthor: A <a@b>\nDate:   Sun Dec 6 08:40:03 2026 +0000\n\n    init\n\ndiff --git a/.env b/.env\nnew file mode 100644\nindex 0000000..4bfd5d5\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1,3 @@\n+API_KEY=sk-live-SECRET\n+START=12:30:00\n+OTHER=x\ndiff --git a/config-2024-01/.env b/config-2024-01/.env\nnew file mode 100644\nindex 0000000..d512345\n--- /dev/null\n+++ b/config-2024-01/.env\n@@ -0,0 +1,2 @@\n+API_KEY=SECRET-dated\n+OTHER=SECRET-ctx\ndiff --git a/docs/readme.md b/docs/readme.md\nnew file mode 100644\nindex 0000000..9150fd3\n--- /dev/null\n+++ b/docs/readme.md\n@@ -0,0 +1 @@\n+API_KEY docs\ndiff --git a/my dir/secrets/my key.txt b/my dir/secrets/my key.txt\nnew file mode 100644\nindex 0000000..a24331b\n--- /dev/null\n+++ b/my dir/secrets/my key.txt\t\n@@ -0,0 +1 @@\n+TOKEN=SECRET-spaced\ndiff --git a/secrets/k.txt b/secrets/k.txt\nnew file mode 100644\nindex 0000000..2d24394\n--- /dev/null\n+++ b/secrets/k.txt\n@@ -0,0 +1 @@\n+TOKEN=SECRET-token\ndiff --git a/src/app.ts b/src/app.ts\nnew file mode 100644\nindex 0000000..51b9ced\n--- /dev/null\n+++ b/src/app.ts\n@@ -0,0 +1,2 @@\n+const key = process.env.API_KEY\n+export default key\n",
        &["+const key = process.env.API_KEY // v2", "    second"],
    );
}

/// `git show HEAD`, captured from the real tool.
#[test]
fn git_show() {
    check(
        "git show HEAD",
        "commit 1d5eba43574506afb959e0835577f21fdd368d36\nAuthor: A <a@b>\nDate:   Sun Dec 6 08:40:03 2026 +0000\n\n    second\n\ndiff --git a/.env b/.env\nindex 4bfd5d5..5f96f57 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\ndiff --git a/secrets/k.txt b/secrets/k.txt\nindex 2d24394..bc9a9be 100644\n--- a/secrets/k.txt\n+++ b/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2   \ndiff --git a/src/app.ts b/src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n export default key\n",
        &["+const key = process.env.API_KEY // v2"],
    );
}

/// `git log -p --graph -1`, captured from the real tool.
#[test]
fn git_log_graph() {
    check(
        "git log -p --graph -1",
        "* commit 1d5eba43574506afb959e0835577f21fdd368d36\n| Author: A <a@b>\n| Date:   Sun Dec 6 08:40:03 2026 +0000\n| \n|     second\n| \n| diff --git a/.env b/.env\n| index 4bfd5d5..5f96f57 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET\n| +API_KEY=sk-live-SECRET2\n|  START=12:30:00\n| -OTHER=x\n| +OTHER=SECRET-x\n| diff --git a/secrets/k.txt b/secrets/k.txt\n| index 2d24394..bc9a9be 100644\n| --- a/secrets/k.txt\n| +++ b/secrets/k.txt\n| @@ -1 +1 @@\n| -TOKEN=SECRET-token\n| +TOKEN=SECRET-token2   \n| diff --git a/src/app.ts b/src/app.ts\n| index 51b9ced..8f2e18e 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,2 +1,2 @@\n| -const key = process.env.API_KEY\n| +const key = process.env.API_KEY // v2\n|  export default key\n",
        &["| +const key = process.env.API_KEY // v2"],
    );
}

/// `git range-diff A^..A B^..B`, captured from the real tool.
#[test]
fn git_range_diff() {
    check(
        "git range-diff A^..A B^..B",
        "1:  9001c0f ! 1:  a79fb88 mainchg\n    @@ Metadata\n     Author: A <a@b>\n     \n      ## Commit message ##\n    -    mainchg\n    +    side\n     \n      ## .env ##\n     @@\n     -API_KEY=sk-live-SECRET2\n    -+API_KEY=SECRET-main\n    ++API_KEY=SECRET-side\n      START=12:30:00\n      OTHER=SECRET-x\n",
        &[],
    );
}

/// `diff -ru a b`, captured from the real tool.
#[test]
fn diff_ru() {
    check(
        "diff -ru a b",
        "diff -ru a/.env b/.env\n--- a/.env\t2026-12-06 08:40:15.405447321 +0000\n+++ b/.env\t2026-12-06 08:40:15.405447321 +0000\n@@ -1,2 +1,2 @@\n-API_KEY=SECRET-old\n+API_KEY=SECRET-new\n X=1\ndiff -ru \"a/my dir/.env\" \"b/my dir/.env\"\n--- \"a/my dir/.env\"\t2026-12-06 08:40:15.405447321 +0000\n+++ \"b/my dir/.env\"\t2026-12-06 08:40:15.405447321 +0000\n@@ -1 +1 @@\n-P=SECRET-sp1\n+P=SECRET-sp2\ndiff -ru a/readme b/readme\n--- a/readme\t2026-12-06 08:40:15.405447321 +0000\n+++ b/readme\t2026-12-06 08:40:15.405447321 +0000\n@@ -1 +1 @@\n-ok1\n+ok2\ndiff -ru a/secrets/k.txt b/secrets/k.txt\n--- a/secrets/k.txt\t2026-12-06 08:40:15.405447321 +0000\n+++ b/secrets/k.txt\t2026-12-06 08:40:15.405447321 +0000\n@@ -1 +1 @@\n-TOKEN=SECRET-a\n+TOKEN=SECRET-b\n",
        &["-ok1", "+ok2"],
    );
}

/// `diff -r a b  (normal format)`, captured from the real tool.
#[test]
fn diff_r() {
    check(
        "diff -r a b  (normal format)",
        "diff -r a/.env b/.env\n1c1\n< API_KEY=SECRET-old\n---\n> API_KEY=SECRET-new\ndiff -r \"a/my dir/.env\" \"b/my dir/.env\"\n1c1\n< P=SECRET-sp1\n---\n> P=SECRET-sp2\ndiff -r a/readme b/readme\n1c1\n< ok1\n---\n> ok2\ndiff -r a/secrets/k.txt b/secrets/k.txt\n1c1\n< TOKEN=SECRET-a\n---\n> TOKEN=SECRET-b\n",
        &["< ok1", "> ok2"],
    );
}

/// `diff -rc a b  (context format)`, captured from the real tool.
#[test]
fn diff_rc() {
    check(
        "diff -rc a b  (context format)",
        "diff -rc a/.env b/.env\n*** a/.env\t2026-12-06 08:40:15.405447321 +0000\n--- b/.env\t2026-12-06 08:40:15.405447321 +0000\n***************\n*** 1,2 ****\n! API_KEY=SECRET-old\n  X=1\n--- 1,2 ----\n! API_KEY=SECRET-new\n  X=1\ndiff -rc \"a/my dir/.env\" \"b/my dir/.env\"\n*** \"a/my dir/.env\"\t2026-12-06 08:40:15.405447321 +0000\n--- \"b/my dir/.env\"\t2026-12-06 08:40:15.405447321 +0000\n***************\n*** 1 ****\n! P=SECRET-sp1\n--- 1 ----\n! P=SECRET-sp2\ndiff -rc a/readme b/readme\n*** a/readme\t2026-12-06 08:40:15.405447321 +0000\n--- b/readme\t2026-12-06 08:40:15.405447321 +0000\n***************\n*** 1 ****\n! ok1\n--- 1 ----\n! ok2\ndiff -rc a/secrets/k.txt b/secrets/k.txt\n*** a/secrets/k.txt\t2026-12-06 08:40:15.405447321 +0000\n--- b/secrets/k.txt\t2026-12-06 08:40:15.405447321 +0000\n***************\n*** 1 ****\n! TOKEN=SECRET-a\n--- 1 ----\n! TOKEN=SECRET-b\n",
        &["! ok1", "! ok2"],
    );
}

/// `diff -ry -W 60 a b  (side by side)`, captured from the real tool. Side by side prints a
/// file's lines unmarked, so a blocked file's section runs to the end of the output (its own
/// `diff x y` line must not end it): `readme`'s lines after it are withheld too.
#[test]
fn diff_ry() {
    check(
        "diff -ry -W 60 a b  (side by side)",
        "diff -ry -W 60 a/.env b/.env\nAPI_KEY=SECRET-old\t     |\tAPI_KEY=SECRET-new\nX=1\t\t\t\tX=1\ndiff -ry -W 60 \"a/my dir/.env\" \"b/my dir/.env\"\nP=SECRET-sp1\t\t     |\tP=SECRET-sp2\ndiff -ry -W 60 a/readme b/readme\nok1\t\t\t     |\tok2\ndiff -ry -W 60 a/secrets/k.txt b/secrets/k.txt\nTOKEN=SECRET-a\t\t     |\tTOKEN=SECRET-b\n",
        &[],
    );
}

/// `diff -rq a b`, captured from the real tool.
#[test]
fn diff_rq() {
    check(
        "diff -rq a b",
        "Files a/.env and b/.env differ\nFiles a/my dir/.env and b/my dir/.env differ\nFiles a/readme and b/readme differ\nFiles a/secrets/k.txt and b/secrets/k.txt differ\n",
        &["Files a/readme and b/readme differ"],
    );
}

/// `rg -n --hidden SECRET`, captured from the real tool.
#[test]
fn rg_n() {
    check(
        "rg -n --hidden SECRET",
        "secrets/k.txt:1:TOKEN=SECRET-token2   \nconfig-2024-01/.env:1:API_KEY=SECRET-dated\nconfig-2024-01/.env:2:OTHER=SECRET-ctx\nmy dir/secrets/my key.txt:1:TOKEN=SECRET-spaced\n.env:1:API_KEY=sk-live-SECRET3 \n.env:3:OTHER=SECRET-x\n",
        &[],
    );
}

/// `rg --hidden TOKEN  (piped: no line numbers)`, captured from the real tool.
#[test]
fn rg_plain() {
    check(
        "rg --hidden TOKEN  (piped: no line numbers)",
        "secrets/k.txt:TOKEN=SECRET-token2   \nmy dir/secrets/my key.txt:TOKEN=SECRET-spaced\n",
        &[],
    );
}

/// `rg -n --hidden --heading TOKEN`, captured from the real tool.
#[test]
fn rg_heading() {
    check(
        "rg -n --hidden --heading TOKEN",
        "secrets/k.txt\n1:TOKEN=SECRET-token2   \n\nmy dir/secrets/my key.txt\n1:TOKEN=SECRET-spaced\n",
        &[],
    );
}

/// `rg -n --hidden -A2 API_KEY`, captured from the real tool.
#[test]
fn rg_ctx() {
    check(
        "rg -n --hidden -A2 API_KEY",
        "docs/readme.md:1:API_KEY docs\n--\nconfig-2024-01/.env:1:API_KEY=SECRET-dated\nconfig-2024-01/.env-2-OTHER=SECRET-ctx\n--\nsrc/app.ts:1:const key = process.env.API_KEY // v2\nsrc/app.ts-2-export default key\n--\n.env:1:API_KEY=sk-live-SECRET3 \n.env-2-START=12:30:00\n.env-3-OTHER=SECRET-x\n",
        &[
            "src/app.ts-2-export default key",
            "docs/readme.md:1:API_KEY docs",
        ],
    );
}

/// `rg -n --hidden --color=always TOKEN`, captured from the real tool.
#[test]
fn rg_color() {
    check(
        "rg -n --hidden --color=always TOKEN",
        "\x1b[0m\x1b[35msecrets/k.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-token2   \n\x1b[0m\x1b[35mmy dir/secrets/my key.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-spaced\n",
        &[],
    );
}

/// `rg --json --hidden TOKEN secrets`, captured from the real tool.
#[test]
fn rg_json() {
    check(
        "rg --json --hidden TOKEN secrets",
        "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"secrets/k.txt\"}}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"secrets/k.txt\"},\"lines\":{\"text\":\"TOKEN=SECRET-token2   \\n\"},\"line_number\":1,\"absolute_offset\":0,\"submatches\":[{\"match\":{\"text\":\"TOKEN\"},\"start\":0,\"end\":5}]}}\n{\"type\":\"end\",\"data\":{\"path\":{\"text\":\"secrets/k.txt\"},\"binary_offset\":null,\"stats\":{\"elapsed\":{\"secs\":0,\"nanos\":18428,\"human\":\"0.000018s\"},\"searches\":1,\"searches_with_match\":1,\"bytes_searched\":23,\"bytes_printed\":256,\"matched_lines\":1,\"matches\":1}}}\n{\"data\":{\"elapsed_total\":{\"human\":\"0.004780s\",\"nanos\":4780225,\"secs\":0},\"stats\":{\"bytes_printed\":256,\"bytes_searched\":23,\"elapsed\":{\"human\":\"0.000018s\",\"nanos\":18428,\"secs\":0},\"matched_lines\":1,\"matches\":1,\"searches\":1,\"searches_with_match\":1}},\"type\":\"summary\"}\n",
        &[],
    );
}

/// `head -n 5 src/app.ts docs/readme.md .env secrets/k.txt`, captured from the real tool.
#[test]
fn head_banners() {
    check(
        "head -n 5 src/app.ts docs/readme.md .env secrets/k.txt",
        "==> src/app.ts <==\nconst key = process.env.API_KEY // v2\nexport default key\n\n==> docs/readme.md <==\nAPI_KEY docs\n\n==> .env <==\nAPI_KEY=sk-live-SECRET2\nSTART=12:30:00\nOTHER=SECRET-x\ndiff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n\n==> secrets/k.txt <==\nTOKEN=SECRET-token2\n",
        &["==> src/app.ts <==", "export default key", "API_KEY docs"],
    );
}

/// `tail -n +1 docs/readme.md readme config-2024-01/.env`, captured from the real tool.
#[test]
fn tail_banners() {
    check(
        "tail -n +1 docs/readme.md readme config-2024-01/.env",
        "==> docs/readme.md <==\nAPI_KEY docs\n\n==> readme <==\nplain readme TOKEN\n\n==> config-2024-01/.env <==\nAPI_KEY=SECRET-dated\nOTHER=SECRET-ctx\n",
        &["API_KEY docs", "plain readme TOKEN"],
    );
}

/// `git diff --no-prefix HEAD~1`, captured from the real tool.
#[test]
fn git_diff_no_prefix() {
    check(
        "git diff --no-prefix HEAD~1",
        "diff --git .env .env\nindex 4bfd5d5..815c680 100644\n--- .env\n+++ .env\n@@ -1,3 +1,8 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\n+diff --git a/src/app.ts b/src/app.ts\n+--- a/src/app.ts\n++++ b/src/app.ts\n+@@ -1 +1 @@\n+LEAK=SECRET-after-fake-header\ndiff --git secrets/k.txt secrets/k.txt\nindex 2d24394..691f4bb 100644\n--- secrets/k.txt\n+++ secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2\ndiff --git src/app.ts src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- src/app.ts\n+++ src/app.ts\n@@ -1,2 +1,2 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n export default key\n",
        &["+const key = process.env.API_KEY // v2"],
    );
}

/// `git diff HEAD~1 -- .env src`, captured from the real tool.
#[test]
fn git_diff_fake_header_in_blocked_file() {
    check(
        "git diff HEAD~1 -- .env src",
        "diff --git a/.env b/.env\nindex 4bfd5d5..815c680 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,8 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\n+diff --git a/src/app.ts b/src/app.ts\n+--- a/src/app.ts\n++++ b/src/app.ts\n+@@ -1 +1 @@\n+LEAK=SECRET-after-fake-header\ndiff --git a/src/app.ts b/src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n export default key\n",
        &["+const key = process.env.API_KEY // v2"],
    );
}

/// `git diff -U0 HEAD~1`, captured from the real tool.
#[test]
fn git_diff_u0() {
    check(
        "git diff -U0 HEAD~1",
        "diff --git a/.env b/.env\nindex 4bfd5d5..815c680 100644\n--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n@@ -3 +3,6 @@ START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\n+diff --git a/src/app.ts b/src/app.ts\n+--- a/src/app.ts\n++++ b/src/app.ts\n+@@ -1 +1 @@\n+LEAK=SECRET-after-fake-header\ndiff --git a/secrets/k.txt b/secrets/k.txt\nindex 2d24394..691f4bb 100644\n--- a/secrets/k.txt\n+++ b/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2\ndiff --git a/src/app.ts b/src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n",
        &["+const key = process.env.API_KEY // v2"],
    );
}

/// `git format-patch -1 --stdout`, captured from the real tool.
#[test]
fn git_format_patch() {
    check(
        "git format-patch -1 --stdout",
        "From 155771e610b6225d45bad5f1a8edbea63b975139 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nDate: Sun, 6 Dec 2026 13:06:11 +0000\nSubject: [PATCH] second\n\n---\n .env          | 9 +++++++--\n secrets/k.txt | 2 +-\n src/app.ts    | 2 +-\n 3 files changed, 9 insertions(+), 4 deletions(-)\n\ndiff --git a/.env b/.env\nindex 4bfd5d5..815c680 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,8 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\n+diff --git a/src/app.ts b/src/app.ts\n+--- a/src/app.ts\n++++ b/src/app.ts\n+@@ -1 +1 @@\n+LEAK=SECRET-after-fake-header\ndiff --git a/secrets/k.txt b/secrets/k.txt\nindex 2d24394..691f4bb 100644\n--- a/secrets/k.txt\n+++ b/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token\n+TOKEN=SECRET-token2\ndiff --git a/src/app.ts b/src/app.ts\nindex 51b9ced..8f2e18e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-const key = process.env.API_KEY\n+const key = process.env.API_KEY // v2\n export default key\n-- \n2.47.3\n\n",
        &["+const key = process.env.API_KEY // v2"],
    );
}

/// `git stash show -p`, captured from the real tool.
#[test]
fn git_stash_show() {
    check(
        "git stash show -p",
        "diff --git a/secrets/k.txt b/secrets/k.txt\nindex 691f4bb..c89ce8a 100644\n--- a/secrets/k.txt\n+++ b/secrets/k.txt\n@@ -1 +1 @@\n-TOKEN=SECRET-token2\n+TOKEN=SECRET-stash\n",
        &[],
    );
}

/// `git log --follow -p -- .env`, captured from the real tool.
#[test]
fn git_log_follow() {
    check(
        "git log --follow -p -- .env",
        "commit 155771e610b6225d45bad5f1a8edbea63b975139\nAuthor: A <a@b>\nDate:   Sun Dec 6 13:06:11 2026 +0000\n\n    second\n\ndiff --git a/.env b/.env\nindex 4bfd5d5..815c680 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,8 @@\n-API_KEY=sk-live-SECRET\n+API_KEY=sk-live-SECRET2\n START=12:30:00\n-OTHER=x\n+OTHER=SECRET-x\n+diff --git a/src/app.ts b/src/app.ts\n+--- a/src/app.ts\n++++ b/src/app.ts\n+@@ -1 +1 @@\n+LEAK=SECRET-after-fake-header\n\ncommit aa41f24423fd29adfa1e0409fa10ef8aa605654f\nAuthor: A <a@b>\nDate:   Sun Dec 6 13:06:11 2026 +0000\n\n    init\n\ndiff --git a/.env b/.env\nnew file mode 100644\nindex 0000000..4bfd5d5\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1,3 @@\n+API_KEY=sk-live-SECRET\n+START=12:30:00\n+OTHER=x\n",
        &[],
    );
}

/// `git diff --word-diff=color HEAD~1`, captured from the real tool.
#[test]
fn git_word_diff_color() {
    check(
        "git diff --word-diff=color HEAD~1",
        "\x1b[1mdiff --git a/.env b/.env\x1b[m\n\x1b[1mindex 4bfd5d5..815c680 100644\x1b[m\n\x1b[1m--- a/.env\x1b[m\n\x1b[1m+++ b/.env\x1b[m\n\x1b[36m@@ -1,3 +1,8 @@\x1b[m\n\x1b[31mAPI_KEY=sk-live-SECRET\x1b[m\x1b[32mAPI_KEY=sk-live-SECRET2\x1b[m\nSTART=12:30:00\x1b[m\n\x1b[31mOTHER=x\x1b[m\x1b[32mOTHER=SECRET-x\x1b[m\n\x1b[32mdiff --git a/src/app.ts b/src/app.ts\x1b[m\n\x1b[32m--- a/src/app.ts\x1b[m\n\x1b[32m+++ b/src/app.ts\x1b[m\n\x1b[32m@@ -1 +1 @@\x1b[m\n\x1b[32mLEAK=SECRET-after-fake-header\x1b[m\n\x1b[1mdiff --git a/secrets/k.txt b/secrets/k.txt\x1b[m\n\x1b[1mindex 2d24394..691f4bb 100644\x1b[m\n\x1b[1m--- a/secrets/k.txt\x1b[m\n\x1b[1m+++ b/secrets/k.txt\x1b[m\n\x1b[36m@@ -1 +1 @@\x1b[m\n\x1b[31mTOKEN=SECRET-token\x1b[m\x1b[32mTOKEN=SECRET-token2\x1b[m\n\x1b[1mdiff --git a/src/app.ts b/src/app.ts\x1b[m\n\x1b[1mindex 51b9ced..8f2e18e 100644\x1b[m\n\x1b[1m--- a/src/app.ts\x1b[m\n\x1b[1m+++ b/src/app.ts\x1b[m\n\x1b[36m@@ -1,2 +1,2 @@\x1b[m\nconst key = process.env.API_KEY \x1b[32m// v2\x1b[m\nexport default key\x1b[m\n",
        &[],
    );
}

/// `git grep -n --heading -C1 --untracked KEY`, captured from the real tool.
#[test]
fn git_grep_heading_context() {
    check(
        "git grep -n --heading -C1 --untracked KEY",
        ".env\n1:API_KEY=sk-live-SECRET2\n2-START=12:30:00\n--\nconfig-2024-01/.env\n1:API_KEY=SECRET-dated\n2-OTHER=SECRET-ctx\n--\ndocs/readme.md\n1:API_KEY docs\n--\nsrc/app.ts\n1:const key = process.env.API_KEY // v2\n2-export default key\n",
        &["const key = process.env.API_KEY // v2"],
    );
}

/// `rg --vimgrep --hidden SECRET`, captured from the real tool.
#[test]
fn rg_vimgrep() {
    check(
        "rg --vimgrep --hidden SECRET",
        "secrets/k.txt:1:7:TOKEN=SECRET-token2\nconfig-2024-01/.env:1:9:API_KEY=SECRET-dated\nconfig-2024-01/.env:2:7:OTHER=SECRET-ctx\nmy dir/secrets/my key.txt:1:7:TOKEN=SECRET-spaced\n.env:1:17:API_KEY=sk-live-SECRET2\n.env:3:7:OTHER=SECRET-x\n.env:8:6:LEAK=SECRET-after-fake-header\n",
        &[],
    );
}

/// `rg -n --hidden --heading -C1 --color=always KEY`, captured from the real tool.
#[test]
fn rg_heading_context() {
    check(
        "rg -n --hidden --heading -C1 --color=always KEY",
        "\x1b[0m\x1b[35mdocs/readme.md\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:API_\x1b[0m\x1b[1m\x1b[31mKEY\x1b[0m docs\n\n\x1b[0m\x1b[35mconfig-2024-01/.env\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:API_\x1b[0m\x1b[1m\x1b[31mKEY\x1b[0m=SECRET-dated\n\x1b[0m\x1b[32m2\x1b[0m-OTHER=SECRET-ctx\n\n\x1b[0m\x1b[35msrc/app.ts\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:const key = process.env.API_\x1b[0m\x1b[1m\x1b[31mKEY\x1b[0m // v2\n\x1b[0m\x1b[32m2\x1b[0m-export default key\n\n\x1b[0m\x1b[35m.env\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:API_\x1b[0m\x1b[1m\x1b[31mKEY\x1b[0m=sk-live-SECRET2\n\x1b[0m\x1b[32m2\x1b[0m-START=12:30:00\n",
        &["export default key"],
    );
}

/// `rg -c --hidden TOKEN`, captured from the real tool.
#[test]
fn rg_count() {
    check(
        "rg -c --hidden TOKEN",
        "readme:1\nsecrets/k.txt:1\nmy dir/secrets/my key.txt:1\n",
        &[],
    );
}

/// `grep -rbn TOKEN .`, captured from the real tool.
#[test]
fn grep_byte_offset() {
    check(
        "grep -rbn TOKEN .",
        "./my dir/secrets/my key.txt:1:0:TOKEN=SECRET-spaced\n./secrets/k.txt:1:0:TOKEN=SECRET-token2\n./readme:1:0:plain readme TOKEN\n",
        &["./readme:1:0:plain readme TOKEN"],
    );
}

/// `grep -rno 'SECRET[-a-z0-9]*' .`, captured from the real tool.
#[test]
fn grep_only_matching() {
    check(
        "grep -rno 'SECRET[-a-z0-9]*' .",
        "./.env:1:SECRET2\n./.env:3:SECRET-x\n./.env:8:SECRET-after-fake-header\n./my dir/secrets/my key.txt:1:SECRET-spaced\n./config-2024-01/.env:1:SECRET-dated\n./config-2024-01/.env:2:SECRET-ctx\n./secrets/k.txt:1:SECRET-token2\n",
        &[],
    );
}

/// `diff -ruN a b`, captured from the real tool.
#[test]
fn diff_ru_new_files() {
    check(
        "diff -ruN a b",
        "diff -ruN a/.env b/.env\n--- a/.env\t2026-12-06 13:06:15.874396059 +0000\n+++ b/.env\t2026-12-06 13:06:15.874396059 +0000\n@@ -1,2 +1,4 @@\n-API_KEY=SECRET-old\n+API_KEY=SECRET-new\n X=1\n+diff -r a/readme b/readme\n+LEAK=SECRET-after-fake-diff\ndiff -ruN a/new.env b/new.env\n--- a/new.env\t1970-01-01 00:00:00.000000000 +0000\n+++ b/new.env\t2026-12-06 13:06:25.860667094 +0000\n@@ -0,0 +1 @@\n+NEW=fine\ndiff -ruN a/readme b/readme\n--- a/readme\t2026-12-06 13:06:15.874396059 +0000\n+++ b/readme\t2026-12-06 13:06:15.874396059 +0000\n@@ -1 +1 @@\n-ok1\n+ok2\n",
        &["+NEW=fine", "-ok1"],
    );
}

/// `diff -ry a b`, captured from the real tool.
#[test]
fn diff_y_fake_header() {
    check(
        "diff -ry a b",
        "diff -ry a/.env b/.env\nAPI_KEY=SECRET-old\t\t\t\t\t      |\tAPI_KEY=SECRET-new\nX=1\t\t\t\t\t\t\t\tX=1\n\t\t\t\t\t\t\t      >\tdiff -r a/readme b/readme\n\t\t\t\t\t\t\t      >\tLEAK=SECRET-after-fake-diff\nOnly in b: new.env\ndiff -ry a/readme b/readme\nok1\t\t\t\t\t\t\t      |\tok2\n",
        &[],
    );
}

/// `diff -ryt a b`, captured from the real tool.
#[test]
fn diff_yt_expanded() {
    check(
        "diff -ryt a b",
        "diff -ryt a/.env b/.env\nAPI_KEY=SECRET-old                                              |  API_KEY=SECRET-new\nX=1                                                                X=1\n                                                                >  diff -r a/readme b/readme\n                                                                >  LEAK=SECRET-after-fake-diff\nOnly in b: new.env\ndiff -ryt a/readme b/readme\nok1                                                             |  ok2\n",
        &[],
    );
}

/// `diff -c a/.env b/.env`, captured from the real tool.
#[test]
fn diff_c_two_files() {
    check(
        "diff -c a/.env b/.env",
        "*** a/.env\t2026-12-06 13:06:15.874396059 +0000\n--- b/.env\t2026-12-06 13:06:15.874396059 +0000\n***************\n*** 1,2 ****\n! API_KEY=SECRET-old\n  X=1\n--- 1,4 ----\n! API_KEY=SECRET-new\n  X=1\n+ diff -r a/readme b/readme\n+ LEAK=SECRET-after-fake-diff\n",
        &[],
    );
}

/// `diff -u a/.env b/.env`, captured from the real tool.
#[test]
fn diff_u_two_files() {
    check(
        "diff -u a/.env b/.env",
        "--- a/.env\t2026-12-06 13:06:15.874396059 +0000\n+++ b/.env\t2026-12-06 13:06:15.874396059 +0000\n@@ -1,2 +1,4 @@\n-API_KEY=SECRET-old\n+API_KEY=SECRET-new\n X=1\n+diff -r a/readme b/readme\n+LEAK=SECRET-after-fake-diff\n",
        &[],
    );
}

/// `diff -re a b`, captured from the real tool.
#[test]
fn diff_ed() {
    check(
        "diff -re a b",
        "diff -re a/.env b/.env\n2a\ndiff -r a/readme b/readme\nLEAK=SECRET-after-fake-diff\n.\n1c\nAPI_KEY=SECRET-new\n.\nOnly in b: new.env\ndiff -re a/readme b/readme\n1c\nok2\n.\n",
        &[],
    );
}

/// `strings -f .env src/app.ts`, captured from the real tool.
#[test]
fn strings_f() {
    check(
        "strings -f .env src/app.ts",
        ".env: API_KEY=sk-live-SECRET2\n.env: START=12:30:00\n.env: OTHER=SECRET-x\n.env: diff --git a/src/app.ts b/src/app.ts\n.env: --- a/src/app.ts\n.env: +++ b/src/app.ts\n.env: @@ -1 +1 @@\n.env: LEAK=SECRET-after-fake-header\nsrc/app.ts: const key = process.env.API_KEY // v2\nsrc/app.ts: export default key\n",
        &["src/app.ts: export default key"],
    );
}
