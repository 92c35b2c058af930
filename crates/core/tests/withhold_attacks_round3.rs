//! Red-team attacks on `withhold_blocked_lines` (issue 31), round 3: sequences of outputs in one
//! capture (`cmd1; cmd2`), blocked content that mimics headers, graph lanes, candidate rules,
//! hunk counting and extreme outputs. Every output below was printed by a real tool (git 2.47,
//! ripgrep 13, GNU grep, GNU diffutils, coreutils `head`/`tail`/`pr`, util-linux `more`) over a
//! fixture git repository (/tmp/rt3) with blocked `.env`, `config-2024-01/.env`, `2024-01/.env`,
//! `secrets/k.txt`, `my dir/secrets/my key.txt` and allowed `src/app.ts`, `docs/readme.md`,
//! `readme`. Every blocked file's content holds `SECRET` (or the `.env` line `START=12:30:00`);
//! none of it may survive, in the kept lines or in the notes. Lines of allowed files listed in
//! `keep` must survive.

mod withhold_harness;

use withhold_harness::{check, check_absent};

/// `head -n2 src/app.ts docs/readme.md; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn head_banner_then_git_diff_blocked() {
    check(
        "head -n2 src/app.ts docs/readme.md; git diff second~1 second -- .env",
        "==> src/app.ts <==\nconst key = process.env.API_KEY // merged\nexport default key\n\n==> docs/readme.md <==\n# Docs\nAPI_KEY docs\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["export default key", "API_KEY docs"],
    );
}

/// `head -n2 src/app.ts docs/readme.md; rg --heading -n --hidden API_KEY .env src`, captured from the real tool.
#[test]
fn head_banner_then_rg_heading() {
    check(
        "head -n2 src/app.ts docs/readme.md; rg --heading -n --hidden API_KEY .env src",
        "==> src/app.ts <==\nconst key = process.env.API_KEY // merged\nexport default key\n\n==> docs/readme.md <==\n# Docs\nAPI_KEY docs\nsrc/app.ts\n1:const key = process.env.API_KEY // merged\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["export default key", "API_KEY docs"],
    );
}

/// `tail -n2 readme docs/readme.md; git log -p -1 --format=%s second -- .env`, captured from the real tool.
#[test]
fn tail_banner_then_git_log_p() {
    check(
        "tail -n2 readme docs/readme.md; git log -p -1 --format=%s second -- .env",
        "==> readme <==\nreadme TOKEN line\nplain\n\n==> docs/readme.md <==\nTOKEN usage\nmore docs\nsecond\n\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["plain", "more docs"],
    );
}

/// `more src/app.ts docs/readme.md; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn more_then_git_diff_blocked() {
    check(
        "more src/app.ts docs/readme.md; git diff second~1 second -- .env",
        "::::::::::::::\nsrc/app.ts\n::::::::::::::\nconst key = process.env.API_KEY // merged\nexport default key\nfunction main() {\n  return key\n}\n::::::::::::::\ndocs/readme.md\n::::::::::::::\n# Docs\nAPI_KEY docs\nTOKEN usage\nmore docs\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["more docs"],
    );
}

/// `pr -l 20 src/app.ts docs/readme.md; rg --heading -n --hidden KEY .env src`, captured from the real tool.
#[test]
fn pr_then_rg_heading() {
    check(
        "pr -l 20 src/app.ts docs/readme.md; rg --heading -n --hidden KEY .env src",
        "\n\n2026-12-06 14:35                    src/app.ts                    Page 1\n\n\nconst key = process.env.API_KEY // merged\nexport default key\nfunction main() {\n  return key\n}\n\n\n\n\n\n\n\n\n\n\n\n\n2026-12-06 14:35                  docs/readme.md                  Page 1\n\n\n# Docs\nAPI_KEY docs\nTOKEN usage\nmore docs\n\n\n\n\n\n\n\n\n\n\n\nsrc/app.ts\n1:const key = process.env.API_KEY // merged\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["API_KEY docs"],
    );
}

/// `pr -l 20 docs/readme.md; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn pr_then_git_diff() {
    check(
        "pr -l 20 docs/readme.md; git diff second~1 second -- .env",
        "\n\n2026-12-06 14:35                  docs/readme.md                  Page 1\n\n\n# Docs\nAPI_KEY docs\nTOKEN usage\nmore docs\n\n\n\n\n\n\n\n\n\n\n\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["API_KEY docs"],
    );
}

/// `diff -ru v1 v2; head -n2 .env readme`, captured from the real tool.
#[test]
fn diffutils_r_then_head_banners() {
    check(
        "diff -ru v1 v2; head -n2 .env readme",
        "diff -ru v1/docs/readme.md v2/docs/readme.md\n--- v1/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n+++ v2/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &["+three"],
    );
}

/// `diff -ru v1 v2; rg --heading -n --hidden API_KEY .env docs`, captured from the real tool.
#[test]
fn diffutils_r_then_rg_heading() {
    check(
        "diff -ru v1 v2; rg --heading -n --hidden API_KEY .env docs",
        "diff -ru v1/docs/readme.md v2/docs/readme.md\n--- v1/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n+++ v2/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+three\ndocs/readme.md\n2:API_KEY docs\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["+three"],
    );
}

/// `diff -ru v1 v2; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn diffutils_r_then_git_diff() {
    check(
        "diff -ru v1 v2; git diff second~1 second -- .env",
        "diff -ru v1/docs/readme.md v2/docs/readme.md\n--- v1/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n+++ v2/docs/readme.md\t2026-12-06 14:35:43.862544993 +0000\n@@ -1,2 +1,2 @@\n one\n-two\n+three\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["+three"],
    );
}

/// `git diff second~1 second -- src | head -n 6; rg --heading -n --hidden API_KEY .env docs`, captured from the real tool.
#[test]
fn truncated_diff_then_rg_heading() {
    check(
        "git diff second~1 second -- src | head -n 6; rg --heading -n --hidden API_KEY .env docs",
        "diff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\ndocs/readme.md\n2:API_KEY docs\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["2:API_KEY docs"],
    );
}

/// `git diff second~1 second -- src | head -n 6; head -n2 .env readme`, captured from the real tool.
#[test]
fn truncated_diff_then_head_banners() {
    check(
        "git diff second~1 second -- src | head -n 6; head -n2 .env readme",
        "diff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &["-const key = process.env.API_KEY // v2"],
    );
}

/// `git diff --check second~1 second -- src; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn git_diff_check_then_git_diff() {
    check(
        "git diff --check second~1 second -- src; git diff second~1 second -- .env",
        "diff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &[],
    );
}

/// `rg --heading -n API_KEY src docs; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn rg_heading_then_git_diff() {
    check(
        "rg --heading -n API_KEY src docs; git diff second~1 second -- .env",
        "docs/readme.md\n2:API_KEY docs\n\nsrc/app.ts\n1:const key = process.env.API_KEY // merged\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &["1:const key = process.env.API_KEY // merged"],
    );
}

/// `git range-diff second~1..second second~1..feature; rg --heading -n --hidden API_KEY .env docs`, captured from the real tool.
#[test]
fn git_range_diff_then_rg_heading() {
    check(
        "git range-diff second~1..second second~1..feature; rg --heading -n --hidden API_KEY .env docs",
        "1:  151da42 = 1:  151da42 second\n-:  ------- > 2:  797a85f feature\ndocs/readme.md\n2:API_KEY docs\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["2:API_KEY docs"],
    );
}

/// `rg --heading -n --hidden -g '!.git' -g '!config-2024-01' API_KEY`, captured from the real tool.
#[test]
fn rg_heading_digit_dir() {
    check(
        "rg --heading -n --hidden -g '!.git' -g '!config-2024-01' API_KEY",
        "docs/readme.md\n2:API_KEY docs\n\n2024-01/.env\n1:API_KEY=SECRET-num\n\nsrc/app.ts\n1:const key = process.env.API_KEY // merged\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &["1:const key = process.env.API_KEY // merged"],
    );
}

/// `rg --heading --hidden -g '!.git' -g '!config-2024-01' API_KEY`, captured from the real tool.
/// Without numbers an empty line may be the blocked file's own (round 3's `gap.txt`): a blocked
/// heading keeps every line to the next section, so `src/app.ts`'s after it go too.
#[test]
fn rg_heading_digit_dir_without_line_numbers() {
    check(
        "rg --heading --hidden -g '!.git' -g '!config-2024-01' API_KEY",
        "docs/readme.md\nAPI_KEY docs\n\n2024-01/.env\nAPI_KEY=SECRET-num\n\nsrc/app.ts\nconst key = process.env.API_KEY // merged\n\n.env\nAPI_KEY=sk-live-SECRET-merged\n",
        &["API_KEY docs"],
    );
}

/// `git grep --heading -n API_KEY`, captured from the real tool.
#[test]
fn git_grep_heading_digit_dir() {
    check(
        "git grep --heading -n API_KEY",
        ".env\n1:API_KEY=sk-live-SECRET-merged\n2024-01/.env\n1:API_KEY=SECRET-num\nconfig-2024-01/.env\n1:API_KEY=SECRET-dated\ndocs/readme.md\n2:API_KEY docs\nsrc/app.ts\n1:const key = process.env.API_KEY // merged\n",
        &["1:const key = process.env.API_KEY // merged"],
    );
}

/// `grep -rn API_KEY 2024-01 src`, captured from the real tool.
#[test]
fn grep_rn_digit_dir() {
    check(
        "grep -rn API_KEY 2024-01 src",
        "2024-01/.env:1:API_KEY=SECRET-num\nsrc/app.ts:1:const key = process.env.API_KEY // merged\n",
        &["src/app.ts:1:const key"],
    );
}

/// `git diff second~1 second -- config-2024-01/.env`, captured from the real tool.
#[test]
fn git_diff_blocked_note_from_content() {
    check(
        "git diff second~1 second -- config-2024-01/.env",
        "diff --git a/config-2024-01/.env b/config-2024-01/.env\nindex d512345..b04b31a 100644\n--- a/config-2024-01/.env\n+++ b/config-2024-01/.env\n@@ -1,2 +1,3 @@\n API_KEY=SECRET-dated\n OTHER=SECRET-ctx\n+SECRET_FILE=/run/secrets/api-key\n",
        &[],
    );
}

/// `head -n4 config-2024-01/.env readme`, captured from the real tool.
#[test]
fn head_blocked_note_from_content() {
    check(
        "head -n4 config-2024-01/.env readme",
        "==> config-2024-01/.env <==\nAPI_KEY=SECRET-dated\nOTHER=SECRET-ctx\nSECRET_FILE=/run/secrets/api-key\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &[],
    );
}

/// `grep -rn SECRET_FILE . --exclude-dir=.git`, captured from the real tool.
#[test]
fn grep_blocked_note_from_content() {
    check(
        "grep -rn SECRET_FILE . --exclude-dir=.git",
        "./config-2024-01/.env:3:SECRET_FILE=/run/secrets/api-key\n",
        &[],
    );
}

/// `git diff --stat -p second~1 second -- .env src`, captured from the real tool.
#[test]
fn git_diff_stat_p() {
    check(
        "git diff --stat -p second~1 second -- .env src",
        " .env       | 4 ++--\n src/app.ts | 2 +-\n 2 files changed, 3 insertions(+), 3 deletions(-)\n\ndiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\ndiff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\n+const key = process.env.API_KEY // v3\n export default key\n function main() {\n   return key\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git diff --function-context second~1 second -- .env src`, captured from the real tool.
#[test]
fn git_diff_function_context() {
    check(
        "git diff --function-context second~1 second -- .env src",
        "diff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\ndiff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\n+const key = process.env.API_KEY // v3\n export default key\n function main() {\n   return key\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git show merge`, captured from the real tool.
#[test]
fn git_show_merge_cc() {
    check(
        "git show merge",
        "commit dfabab349d04d5f5aeddccbc942806b468f599bb\nMerge: 11bc2e7 797a85f\nAuthor: T <a@b>\nDate:   Sun Dec 6 14:00:00 2026 +0000\n\n    merge\n\ndiff --cc .env\nindex 6877fb6,41fd79d..e770949\n--- a/.env\n+++ b/.env\n@@@ -1,3 -1,3 +1,3 @@@\n- API_KEY=sk-live-SECRET-main\n -API_KEY=sk-live-SECRET-feature\n++API_KEY=sk-live-SECRET-merged\n  START=12:30:00\n  OTHER=SECRET-y\ndiff --cc src/app.ts\nindex 4ba7f90,a4901ec..a70eb4e\n--- a/src/app.ts\n+++ b/src/app.ts\n@@@ -1,4 -1,4 +1,4 @@@\n- const key = process.env.API_KEY // main\n -const key = process.env.API_KEY // feature\n++const key = process.env.API_KEY // merged\n  export default key\n  function main() {\n    return key\n",
        &["++const key = process.env.API_KEY // merged"],
    );
}

/// `git show merge -- src/app.ts; head -n2 .env readme`, captured from the real tool.
#[test]
fn git_show_merge_cc_then_head() {
    check(
        "git show merge -- src/app.ts; head -n2 .env readme",
        "commit dfabab349d04d5f5aeddccbc942806b468f599bb\nMerge: 11bc2e7 797a85f\nAuthor: T <a@b>\nDate:   Sun Dec 6 14:00:00 2026 +0000\n\n    merge\n\ndiff --cc src/app.ts\nindex 4ba7f90,a4901ec..a70eb4e\n--- a/src/app.ts\n+++ b/src/app.ts\n@@@ -1,4 -1,4 +1,4 @@@\n- const key = process.env.API_KEY // main\n -const key = process.env.API_KEY // feature\n++const key = process.env.API_KEY // merged\n  export default key\n  function main() {\n    return key\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &["++const key = process.env.API_KEY // merged"],
    );
}

/// `git show merge -- src/app.ts; rg --heading -n --hidden API_KEY .env docs`, captured from the real tool.
#[test]
fn git_show_merge_cc_then_rg_heading() {
    check(
        "git show merge -- src/app.ts; rg --heading -n --hidden API_KEY .env docs",
        "commit dfabab349d04d5f5aeddccbc942806b468f599bb\nMerge: 11bc2e7 797a85f\nAuthor: T <a@b>\nDate:   Sun Dec 6 14:00:00 2026 +0000\n\n    merge\n\ndiff --cc src/app.ts\nindex 4ba7f90,a4901ec..a70eb4e\n--- a/src/app.ts\n+++ b/src/app.ts\n@@@ -1,4 -1,4 +1,4 @@@\n- const key = process.env.API_KEY // main\n -const key = process.env.API_KEY // feature\n++const key = process.env.API_KEY // merged\n  export default key\n  function main() {\n    return key\ndocs/readme.md\n2:API_KEY docs\n\n.env\n1:API_KEY=sk-live-SECRET-merged\n",
        &[
            "++const key = process.env.API_KEY // merged",
            "2:API_KEY docs",
        ],
    );
}

/// `git show -m merge`, captured from the real tool.
#[test]
fn git_show_merge_m() {
    check(
        "git show -m merge",
        "commit dfabab349d04d5f5aeddccbc942806b468f599bb (from 11bc2e76c35fe6b27419639a7c477da918bcf331)\nMerge: 11bc2e7 797a85f\nAuthor: T <a@b>\nDate:   Sun Dec 6 14:00:00 2026 +0000\n\n    merge\n\ndiff --git a/.env b/.env\nindex 6877fb6..e770949 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET-main\n+API_KEY=sk-live-SECRET-merged\n START=12:30:00\n OTHER=SECRET-y\ndiff --git a/src/app.ts b/src/app.ts\nindex 4ba7f90..a70eb4e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // main\n+const key = process.env.API_KEY // merged\n export default key\n function main() {\n   return key\n\ncommit dfabab349d04d5f5aeddccbc942806b468f599bb (from 797a85f03ebedc5836f73dcb1a3245c89f3aba07)\nMerge: 11bc2e7 797a85f\nAuthor: T <a@b>\nDate:   Sun Dec 6 14:00:00 2026 +0000\n\n    merge\n\ndiff --git a/.env b/.env\nindex 41fd79d..e770949 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET-feature\n+API_KEY=sk-live-SECRET-merged\n START=12:30:00\n OTHER=SECRET-y\ndiff --git a/src/app.ts b/src/app.ts\nindex a4901ec..a70eb4e 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // feature\n+const key = process.env.API_KEY // merged\n export default key\n function main() {\n   return key\n",
        &["+const key = process.env.API_KEY // merged"],
    );
}

/// `git log -1 --cc --format=%s merge -- src; git grep --heading -n API_KEY -- .env docs`, captured from the real tool.
#[test]
fn git_log_cc_then_git_grep_heading() {
    check(
        "git log -1 --cc --format=%s merge -- src; git grep --heading -n API_KEY -- .env docs",
        "merge\n\ndiff --cc src/app.ts\nindex 4ba7f90,a4901ec..a70eb4e\n--- a/src/app.ts\n+++ b/src/app.ts\n@@@ -1,4 -1,4 +1,4 @@@\n- const key = process.env.API_KEY // main\n -const key = process.env.API_KEY // feature\n++const key = process.env.API_KEY // merged\n  export default key\n  function main() {\n    return key\n.env\n1:API_KEY=sk-live-SECRET-merged\ndocs/readme.md\n2:API_KEY docs\n",
        &["2:API_KEY docs"],
    );
}

/// `git log --graph --oneline -p -- .env src/app.ts 2024-01`, captured from the real tool.
#[test]
fn git_log_graph_oneline_p() {
    check(
        "git log --graph --oneline -p -- .env src/app.ts 2024-01",
        "*   dfabab3 merge\n|\\  \n| * 797a85f feature\n| | diff --git a/.env b/.env\n| | index 5512815..41fd79d 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET4\n| | +API_KEY=sk-live-SECRET-feature\n| |  START=12:30:00\n| |  OTHER=SECRET-y\n| | diff --git a/src/app.ts b/src/app.ts\n| | index 6c7dfea..a4901ec 100644\n| | --- a/src/app.ts\n| | +++ b/src/app.ts\n| | @@ -1,4 +1,4 @@\n| | -const key = process.env.API_KEY // v3\n| | +const key = process.env.API_KEY // feature\n| |  export default key\n| |  function main() {\n| |    return key\n* | 11bc2e7 mainchange\n|/  \n|   diff --git a/.env b/.env\n|   index 5512815..6877fb6 100644\n|   --- a/.env\n|   +++ b/.env\n|   @@ -1,3 +1,3 @@\n|   -API_KEY=sk-live-SECRET4\n|   +API_KEY=sk-live-SECRET-main\n|    START=12:30:00\n|    OTHER=SECRET-y\n|   diff --git a/src/app.ts b/src/app.ts\n|   index 6c7dfea..4ba7f90 100644\n|   --- a/src/app.ts\n|   +++ b/src/app.ts\n|   @@ -1,4 +1,4 @@\n|   -const key = process.env.API_KEY // v3\n|   +const key = process.env.API_KEY // main\n|    export default key\n|    function main() {\n|      return key\n* 151da42 second\n| diff --git a/.env b/.env\n| index 4b54f23..5512815 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n| diff --git a/src/app.ts b/src/app.ts\n| index 01d4069..6c7dfea 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,4 +1,4 @@\n| -const key = process.env.API_KEY // v2\n| +const key = process.env.API_KEY // v3\n|  export default key\n|  function main() {\n|    return key\n* 6f42706 init\n  diff --git a/.env b/.env\n  new file mode 100644\n  index 0000000..4b54f23\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n  diff --git a/2024-01/.env b/2024-01/.env\n  new file mode 100644\n  index 0000000..9f32eab\n  --- /dev/null\n  +++ b/2024-01/.env\n  @@ -0,0 +1 @@\n  +API_KEY=SECRET-num\n  diff --git a/src/app.ts b/src/app.ts\n  new file mode 100644\n  index 0000000..01d4069\n  --- /dev/null\n  +++ b/src/app.ts\n  @@ -0,0 +1,5 @@\n  +const key = process.env.API_KEY // v2\n  +export default key\n  +function main() {\n  +  return key\n  +}\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git log --graph -p --format=%s -- .env src/app.ts`, captured from the real tool.
#[test]
fn git_log_graph_format_p() {
    check(
        "git log --graph -p --format=%s -- .env src/app.ts",
        "*   merge\n|\\  \n| * feature\n| | \n| | diff --git a/.env b/.env\n| | index 5512815..41fd79d 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET4\n| | +API_KEY=sk-live-SECRET-feature\n| |  START=12:30:00\n| |  OTHER=SECRET-y\n| | diff --git a/src/app.ts b/src/app.ts\n| | index 6c7dfea..a4901ec 100644\n| | --- a/src/app.ts\n| | +++ b/src/app.ts\n| | @@ -1,4 +1,4 @@\n| | -const key = process.env.API_KEY // v3\n| | +const key = process.env.API_KEY // feature\n| |  export default key\n| |  function main() {\n| |    return key\n* | mainchange\n|/  \n|   \n|   diff --git a/.env b/.env\n|   index 5512815..6877fb6 100644\n|   --- a/.env\n|   +++ b/.env\n|   @@ -1,3 +1,3 @@\n|   -API_KEY=sk-live-SECRET4\n|   +API_KEY=sk-live-SECRET-main\n|    START=12:30:00\n|    OTHER=SECRET-y\n|   diff --git a/src/app.ts b/src/app.ts\n|   index 6c7dfea..4ba7f90 100644\n|   --- a/src/app.ts\n|   +++ b/src/app.ts\n|   @@ -1,4 +1,4 @@\n|   -const key = process.env.API_KEY // v3\n|   +const key = process.env.API_KEY // main\n|    export default key\n|    function main() {\n|      return key\n* second\n| \n| diff --git a/.env b/.env\n| index 4b54f23..5512815 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n| diff --git a/src/app.ts b/src/app.ts\n| index 01d4069..6c7dfea 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,4 +1,4 @@\n| -const key = process.env.API_KEY // v2\n| +const key = process.env.API_KEY // v3\n|  export default key\n|  function main() {\n|    return key\n* init\n  \n  diff --git a/.env b/.env\n  new file mode 100644\n  index 0000000..4b54f23\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n  diff --git a/src/app.ts b/src/app.ts\n  new file mode 100644\n  index 0000000..01d4069\n  --- /dev/null\n  +++ b/src/app.ts\n  @@ -0,0 +1,5 @@\n  +const key = process.env.API_KEY // v2\n  +export default key\n  +function main() {\n  +  return key\n  +}\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git log --graph --all -p -- .env src/app.ts`, captured from the real tool.
#[test]
fn git_log_graph_all_p() {
    check(
        "git log --graph --all -p -- .env src/app.ts",
        "*   commit dfabab349d04d5f5aeddccbc942806b468f599bb\n|\\  Merge: 11bc2e7 797a85f\n| | Author: T <a@b>\n| | Date:   Sun Dec 6 14:00:00 2026 +0000\n| | \n| |     merge\n| | \n| * commit 797a85f03ebedc5836f73dcb1a3245c89f3aba07\n| | Author: T <a@b>\n| | Date:   Sun Dec 6 14:00:00 2026 +0000\n| | \n| |     feature\n| | \n| | diff --git a/.env b/.env\n| | index 5512815..41fd79d 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET4\n| | +API_KEY=sk-live-SECRET-feature\n| |  START=12:30:00\n| |  OTHER=SECRET-y\n| | diff --git a/src/app.ts b/src/app.ts\n| | index 6c7dfea..a4901ec 100644\n| | --- a/src/app.ts\n| | +++ b/src/app.ts\n| | @@ -1,4 +1,4 @@\n| | -const key = process.env.API_KEY // v3\n| | +const key = process.env.API_KEY // feature\n| |  export default key\n| |  function main() {\n| |    return key\n| | \n* | commit 11bc2e76c35fe6b27419639a7c477da918bcf331\n|/  Author: T <a@b>\n|   Date:   Sun Dec 6 14:00:00 2026 +0000\n|   \n|       mainchange\n|   \n|   diff --git a/.env b/.env\n|   index 5512815..6877fb6 100644\n|   --- a/.env\n|   +++ b/.env\n|   @@ -1,3 +1,3 @@\n|   -API_KEY=sk-live-SECRET4\n|   +API_KEY=sk-live-SECRET-main\n|    START=12:30:00\n|    OTHER=SECRET-y\n|   diff --git a/src/app.ts b/src/app.ts\n|   index 6c7dfea..4ba7f90 100644\n|   --- a/src/app.ts\n|   +++ b/src/app.ts\n|   @@ -1,4 +1,4 @@\n|   -const key = process.env.API_KEY // v3\n|   +const key = process.env.API_KEY // main\n|    export default key\n|    function main() {\n|      return key\n| \n* commit 151da42729aac9396efca4dfd31aa8f037b7e209\n| Author: T <a@b>\n| Date:   Sun Dec 6 14:00:00 2026 +0000\n| \n|     second\n| \n| diff --git a/.env b/.env\n| index 4b54f23..5512815 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n| diff --git a/src/app.ts b/src/app.ts\n| index 01d4069..6c7dfea 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,4 +1,4 @@\n| -const key = process.env.API_KEY // v2\n| +const key = process.env.API_KEY // v3\n|  export default key\n|  function main() {\n|    return key\n| \n* commit 6f4270678360f7da688c2231ebcf108dffac6057\n  Author: T <a@b>\n  Date:   Sun Dec 6 14:00:00 2026 +0000\n  \n      init\n  \n  diff --git a/.env b/.env\n  new file mode 100644\n  index 0000000..4b54f23\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n  diff --git a/src/app.ts b/src/app.ts\n  new file mode 100644\n  index 0000000..01d4069\n  --- /dev/null\n  +++ b/src/app.ts\n  @@ -0,0 +1,5 @@\n  +const key = process.env.API_KEY // v2\n  +export default key\n  +function main() {\n  +  return key\n  +}\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git log --graph -p --format=%s main~1 feature -- .env`, captured from the real tool.
#[test]
fn git_log_graph_first_lane_p() {
    check(
        "git log --graph -p --format=%s main~1 feature -- .env",
        "*   merge\n|\\  \n| * feature\n| | \n| | diff --git a/.env b/.env\n| | index 5512815..41fd79d 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET4\n| | +API_KEY=sk-live-SECRET-feature\n| |  START=12:30:00\n| |  OTHER=SECRET-y\n* | mainchange\n|/  \n|   \n|   diff --git a/.env b/.env\n|   index 5512815..6877fb6 100644\n|   --- a/.env\n|   +++ b/.env\n|   @@ -1,3 +1,3 @@\n|   -API_KEY=sk-live-SECRET4\n|   +API_KEY=sk-live-SECRET-main\n|    START=12:30:00\n|    OTHER=SECRET-y\n* second\n| \n| diff --git a/.env b/.env\n| index 4b54f23..5512815 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n* init\n  \n  diff --git a/.env b/.env\n  new file mode 100644\n  index 0000000..4b54f23\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n",
        &[],
    );
}

/// `git diff --word-diff second~1 second -- src; head -n2 .env readme`, captured from the real tool.
#[test]
fn git_diff_word_diff_then_head() {
    check(
        "git diff --word-diff second~1 second -- src; head -n2 .env readme",
        "diff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\nconst key = process.env.API_KEY // [-v2-]{+v3+}\nexport default key\nfunction main() {\n  return key\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &[],
    );
}

/// `git diff -U0 second~1 second -- src; head -n2 .env readme`, captured from the real tool.
#[test]
fn git_diff_u0_then_head() {
    check(
        "git diff -U0 second~1 second -- src; head -n2 .env readme",
        "diff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-const key = process.env.API_KEY // v2\n+const key = process.env.API_KEY // v3\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git diff --binary bin bin2 -- secrets docs`, captured from the real tool.
#[test]
fn git_diff_binary_blocked() {
    check_absent(
        "git diff --binary bin bin2 -- secrets docs",
        "diff --git a/docs/logo.bin b/docs/logo.bin\nindex d5d0b8b4c4c9e936890870f6799cfbb5ba984470..4a270318359d8c2a960136495bceeae9eee22424 100644\nGIT binary patch\nliteral 3\nKcmb<mr~&{1<pA>l\n\nliteral 3\nKcmb<ms0083<N)#j\n\ndiff --git a/secrets/blob.bin b/secrets/blob.bin\nindex dcf50a05f99ee3833d6881d8b3c097616c8ba8cf..1e6849e480568954210774a4d45de5ea3a60e5ec 100644\nGIT binary patch\nliteral 25\ngcmWG`bq;b3VMxl%Gty1YNX$!5P0`KGFG}SC0A&pb6951J\n\nliteral 12\nTcmWG`bq;b3VMxl%GvopQ79RsU\n\n",
        &["Kcmb<ms0083<N)#j"],
        &[
            "gcmWG`bq;b3VMxl%Gty1YNX$!5P0`KGFG}SC0A&pb6951J",
            "TcmWG`bq;b3VMxl%GvopQ79RsU",
        ],
    );
}

/// `git show -M --stat -p --format=%s mv`, captured from the real tool.
#[test]
fn git_show_rename_out_of_blocked() {
    check(
        "git show -M --stat -p --format=%s mv",
        "mv\n---\n {secrets => src}/k.txt | 1 +\n 1 file changed, 1 insertion(+)\n\ndiff --git a/secrets/k.txt b/src/k.txt\nsimilarity index 80%\nrename from secrets/k.txt\nrename to src/k.txt\nindex 691f4bb..08f27c9 100644\n--- a/secrets/k.txt\n+++ b/src/k.txt\n@@ -1 +1,2 @@\n TOKEN=SECRET-token2\n+more\n",
        &[],
    );
}

/// `git diff -M mv second -- secrets src/k.txt src/app.ts`, captured from the real tool.
#[test]
fn git_diff_rename_back_into_blocked() {
    check(
        "git diff -M mv second -- secrets src/k.txt src/app.ts",
        "diff --git a/secrets/blob.bin b/secrets/blob.bin\ndeleted file mode 100644\nindex 1e6849e..0000000\nBinary files a/secrets/blob.bin and /dev/null differ\ndiff --git a/secrets/gap.txt b/secrets/gap.txt\ndeleted file mode 100644\nindex 8d734da..0000000\n--- a/secrets/gap.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-TOKEN=SECRET-a\n-\n-TOKEN2=SECRET-b\ndiff --git a/src/k.txt b/secrets/k.txt\nsimilarity index 80%\nrename from src/k.txt\nrename to secrets/k.txt\nindex 08f27c9..691f4bb 100644\n--- a/src/k.txt\n+++ b/secrets/k.txt\n@@ -1,2 +1 @@\n TOKEN=SECRET-token2\n-more\ndiff --git a/src/app.ts b/src/app.ts\nindex a70eb4e..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // merged\n+const key = process.env.API_KEY // v3\n export default key\n function main() {\n   return key\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git diff -C --find-copies-harder second~1 second -- .env src docs readme`, captured from the real tool.
#[test]
fn git_diff_find_copies_harder() {
    check(
        "git diff -C --find-copies-harder second~1 second -- .env src docs readme",
        "diff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\ndiff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\n+const key = process.env.API_KEY // v3\n export default key\n function main() {\n   return key\n",
        &[],
    );
}

/// `rg --heading -C1 TOKEN secrets/gap.txt readme`, captured from the real tool. The empty line
/// is `gap.txt`'s own; nothing tells it from the gap before `readme`, so `readme` goes too.
#[test]
fn rg_heading_context_empty_line_in_blocked() {
    check(
        "rg --heading -C1 TOKEN secrets/gap.txt readme",
        "secrets/gap.txt\nTOKEN=SECRET-a\n\nTOKEN2=SECRET-b\n\nreadme\nreadme TOKEN line\nplain\n",
        &[],
    );
}

/// `git grep --heading -C1 TOKEN -- readme secrets/gap.txt`, captured from the real tool.
#[test]
fn git_grep_heading_context_empty_line_in_blocked() {
    check(
        "git grep --heading -C1 TOKEN -- readme secrets/gap.txt",
        "readme\nreadme TOKEN line\nplain\n--\nsecrets/gap.txt\nTOKEN=SECRET-a\n\nTOKEN2=SECRET-b\n",
        &["readme TOKEN line"],
    );
}

/// `git diff gap crlf`, captured from the real tool.
#[test]
fn git_diff_crlf() {
    check(
        "git diff gap crlf",
        "diff --git a/docs/crlf.md b/docs/crlf.md\nnew file mode 100644\nindex 0000000..db127bf\n--- /dev/null\n+++ b/docs/crlf.md\n@@ -0,0 +1 @@\n+x\r\ndiff --git a/secrets/crlf.txt b/secrets/crlf.txt\nnew file mode 100644\nindex 0000000..7649058\n--- /dev/null\n+++ b/secrets/crlf.txt\n@@ -0,0 +1,2 @@\n+a\r\n+TOKEN=SECRET-crlf\r\ndiff --git a/secrets/k.txt b/src/k.txt\nsimilarity index 80%\nrename from secrets/k.txt\nrename to src/k.txt\nindex 691f4bb..08f27c9 100644\n--- a/secrets/k.txt\n+++ b/src/k.txt\n@@ -1 +1,2 @@\n TOKEN=SECRET-token2\n+more\n",
        &["+x"],
    );
}

/// `rg --heading -n --crlf TOKEN secrets/crlf.txt readme`, captured from the real tool.
#[test]
fn rg_heading_crlf() {
    check(
        "rg --heading -n --crlf TOKEN secrets/crlf.txt readme",
        "readme\r\n1:readme TOKEN line\n\nsecrets/crlf.txt\r\n2:TOKEN=SECRET-crlf\r\n",
        &["1:readme TOKEN line"],
    );
}

/// `head -c 20 readme; git diff second~1 second -- .env`, captured from the real tool.
#[test]
fn head_missing_final_newline_then_git_diff() {
    check(
        "head -c 20 readme; git diff second~1 second -- .env",
        "readme TOKEN line\npldiff --git a/.env b/.env\nindex 4b54f23..5512815 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-API_KEY=sk-live-SECRET3\n+API_KEY=sk-live-SECRET4\n START=12:30:00\n-OTHER=SECRET-x\n+OTHER=SECRET-y\n",
        &[],
    );
}

/// `tail -n1 -z readme .env`, captured from the real tool.
#[test]
fn tail_zero_terminated_banners() {
    check(
        "tail -n1 -z readme .env",
        "==> readme <==\nreadme TOKEN line\nplain\n\n==> .env <==\nAPI_KEY=sk-live-SECRET-merged\nSTART=12:30:00\nOTHER=SECRET-y\n",
        &[],
    );
}

/// `head -n1 many/f*.txt .env; rg --heading -n KEY many .env` over 10,000 allowed files and one
/// blocked one: the banners and headings have the form captured from the real tools
/// (`==> many/f00001.txt <==`, `many/f00001.txt` / `1:KEY=00001`), built here for their size.
#[test]
fn ten_thousand_banners_and_headings() {
    let mut text = String::new();
    for i in 1..=10_000 {
        text.push_str(&format!("==> many/f{i:05}.txt <==\nKEY={i:05}\n\n"));
    }
    text.push_str("==> .env <==\nAPI_KEY=sk-live-SECRET-merged\n");
    for i in 1..=10_000 {
        text.push_str(&format!("many/f{i:05}.txt\n1:KEY={i:05}\n\n"));
    }
    text.push_str(".env\n1:API_KEY=sk-live-SECRET-merged\n");
    check(
        "head -n1 many/f*.txt .env; rg --heading -n KEY many .env",
        &text,
        &["KEY=00001\n", "KEY=10000\n"],
    );
}

/// `grep -rn KEY many .env` over 10,000 allowed files, the blocked one last (the form captured
/// from the real tool, `many/f00987.txt:1:KEY=00987`), with a 100,000-character allowed line and
/// no final newline.
#[test]
fn ten_thousand_files_long_line_no_final_newline() {
    let mut text = String::new();
    for i in 1..=10_000 {
        text.push_str(&format!("many/f{i:05}.txt:1:KEY={i:05}\n"));
    }
    text.push_str(&format!(
        "many/long.txt:1:KEY={}\n",
        "a-1-b:2:".repeat(12_500)
    ));
    text.push_str(".env:1:API_KEY=sk-live-SECRET-merged");
    check(
        "grep -rn KEY many .env",
        &text,
        &["many/f00001.txt:1:KEY=00001", "many/f10000.txt:1:KEY=10000"],
    );
}
