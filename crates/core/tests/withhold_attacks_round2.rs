//! Red-team attacks on `withhold_blocked_lines` (issue 31), round 2. Every output below was
//! printed by a real tool (GNU grep 3.8, ripgrep 13, git 2.47, GNU diffutils, util-linux
//! `more`, coreutils `pr`/`head`/`tail`, Info-ZIP `unzip`, GNU awk/sed/findutils) over a fixture
//! git repository with blocked `.env`, `config-2024-01/.env`, `secrets/k.txt`,
//! `secrets/long.txt`, `secrets/moved.txt`, `my dir/secrets/my key.txt` (and, under an
//! untracked `odd/`, `odd/secrets/…` with odd names) and allowed `src/app.ts`,
//! `docs/readme.md`, `readme`. Every blocked file's content holds `SECRET` (or the `.env` line
//! `START=12:30:00`); none of it may survive. Lines of allowed files listed in `keep` must
//! survive.

mod withhold_harness;

use withhold_harness::check;

/// `grep -r -A2 API_KEY . --exclude-dir=.git --exclude-dir=odd`, captured from the real tool.
#[test]
fn grep_r_context_without_line_numbers() {
    check(
        "grep -r -A2 API_KEY . --exclude-dir=.git --exclude-dir=odd",
        "./src/app.ts:const key = process.env.API_KEY // v3\n./src/app.ts-export default key\n./src/app.ts-function main() {\n--\n./config-2024-01/.env:API_KEY=SECRET-dated\n./config-2024-01/.env-OTHER=SECRET-ctx\n--\n./docs/readme.md:API_KEY docs\n./docs/readme.md-TOKEN usage\n./docs/readme.md-more docs\n",
        &[
            "./src/app.ts-export default key",
            "./docs/readme.md-TOKEN usage",
        ],
    );
}

/// `grep -r -B1 OTHER . --exclude-dir=.git --exclude-dir=odd`, captured from the real tool.
#[test]
fn grep_r_before_context_without_line_numbers() {
    check(
        "grep -r -B1 OTHER . --exclude-dir=.git --exclude-dir=odd",
        "./config-2024-01/.env-API_KEY=SECRET-dated\n./config-2024-01/.env:OTHER=SECRET-ctx\n",
        &[],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -A1 TOKEN`, captured from the real tool.
#[test]
fn rg_context_without_line_numbers() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -A1 TOKEN",
        "readme:readme TOKEN line\nreadme-plain\n--\ndocs/readme.md:TOKEN usage\ndocs/readme.md-more docs\n--\nsecrets/k.txt:TOKEN=SECRET-token2\nsecrets/k.txt-PASS=SECRET-pass2\n--\nmy dir/secrets/my key.txt:TOKEN=SECRET-spaced\n",
        &["readme-plain"],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' --passthru PASS`, captured from the real tool.
#[test]
fn rg_passthru_without_line_numbers() {
    check(
        "rg --hidden -g '!odd' -g '!.git' --passthru PASS",
        "readme-readme TOKEN line\nreadme-plain\ndocs/readme.md-# Docs\ndocs/readme.md-API_KEY docs\ndocs/readme.md-TOKEN usage\ndocs/readme.md-more docs\nsecrets/long.txt-A=SECRET-a\nsecrets/long.txt-filler1\nsecrets/long.txt-filler2\nsecrets/long.txt-filler3\nsecrets/long.txt-filler4\nsecrets/long.txt-B=SECRET-b\nsecrets/k.txt-TOKEN=SECRET-token2\nsecrets/k.txt:PASS=SECRET-pass2\nsecrets/k.txt-NEW=SECRET-feature\nsecrets/moved.txt-line one\nsecrets/moved.txt-line two SECRET-moved\nsecrets/moved.txt-line three\nsecrets/moved.txt-line four\nconfig-2024-01/.env-API_KEY=SECRET-dated\nconfig-2024-01/.env-OTHER=SECRET-ctx\nmy dir/secrets/my key.txt-TOKEN=SECRET-spaced\nsrc/app.ts-const key = process.env.API_KEY // v3\nsrc/app.ts-export default key\nsrc/app.ts-function main() {\nsrc/app.ts-  return key\nsrc/app.ts-}\n.env-NEWKEY=SECRET-new1\n.env-NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -n --passthru PASS`, captured from the real tool.
#[test]
fn rg_passthru_numbered() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -n --passthru PASS",
        "readme-1-readme TOKEN line\nreadme-2-plain\ndocs/readme.md-1-# Docs\ndocs/readme.md-2-API_KEY docs\ndocs/readme.md-3-TOKEN usage\ndocs/readme.md-4-more docs\nsecrets/long.txt-1-A=SECRET-a\nsecrets/long.txt-2-filler1\nsecrets/long.txt-3-filler2\nsecrets/long.txt-4-filler3\nsecrets/long.txt-5-filler4\nsecrets/long.txt-6-B=SECRET-b\nsecrets/k.txt-1-TOKEN=SECRET-token2\nsecrets/k.txt:2:PASS=SECRET-pass2\nsecrets/k.txt-3-NEW=SECRET-feature\nconfig-2024-01/.env-1-API_KEY=SECRET-dated\nconfig-2024-01/.env-2-OTHER=SECRET-ctx\nsecrets/moved.txt-1-line one\nsecrets/moved.txt-2-line two SECRET-moved\nsecrets/moved.txt-3-line three\nsecrets/moved.txt-4-line four\nmy dir/secrets/my key.txt-1-TOKEN=SECRET-spaced\nsrc/app.ts-1-const key = process.env.API_KEY // v3\nsrc/app.ts-2-export default key\nsrc/app.ts-3-function main() {\nsrc/app.ts-4-  return key\nsrc/app.ts-5-}\n.env-1-NEWKEY=SECRET-new1\n.env-2-NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' --heading TOKEN`, captured from the real tool.
#[test]
fn rg_heading_without_line_numbers() {
    check(
        "rg --hidden -g '!odd' -g '!.git' --heading TOKEN",
        "readme\nreadme TOKEN line\n\ndocs/readme.md\nTOKEN usage\n\nsecrets/k.txt\nTOKEN=SECRET-token2\n\nmy dir/secrets/my key.txt\nTOKEN=SECRET-spaced\n",
        &["readme TOKEN line", "TOKEN usage"],
    );
}

/// `git grep --heading TOKEN`, captured from the real tool. Without `-n` and `--break` nothing
/// tells a file's line from the next file's name: a blocked heading owns every line to an empty
/// one, so `readme`'s line after it is withheld too (the doubt withholds).
#[test]
fn git_grep_heading_without_line_numbers() {
    check(
        "git grep --heading TOKEN",
        "docs/readme.md\nTOKEN usage\nmy dir/secrets/my key.txt\nTOKEN=SECRET-spaced\nreadme\nreadme TOKEN line\nsecrets/k.txt\nTOKEN=SECRET-token2\n",
        &["TOKEN usage"],
    );
}

/// `git grep -A1 API_KEY`, captured from the real tool.
#[test]
fn git_grep_context_without_line_numbers() {
    check(
        "git grep -A1 API_KEY",
        "config-2024-01/.env:API_KEY=SECRET-dated\nconfig-2024-01/.env-OTHER=SECRET-ctx\n--\ndocs/readme.md:API_KEY docs\ndocs/readme.md-TOKEN usage\n--\nsrc/app.ts:const key = process.env.API_KEY // v3\nsrc/app.ts-export default key\n",
        &["src/app.ts-export default key"],
    );
}

/// `git grep -n -W -e OTHER -e return`, captured from the real tool.
#[test]
fn git_grep_function_context() {
    check(
        "git grep -n -W -e OTHER -e return",
        "config-2024-01/.env:2:OTHER=SECRET-ctx\n--\nsrc/app.ts=3=function main() {\nsrc/app.ts:4:  return key\nsrc/app.ts-5-}\n",
        &["src/app.ts:4:  return key", "src/app.ts-5-}"],
    );
}

/// `git grep -W -e SECRET-b -e return`, captured from the real tool.
#[test]
fn git_grep_function_context_without_line_numbers() {
    check(
        "git grep -W -e SECRET-b -e return",
        "secrets/long.txt:B=SECRET-b\n--\nsrc/app.ts=function main() {\nsrc/app.ts:  return key\nsrc/app.ts-}\n",
        &["src/app.ts:  return key"],
    );
}

/// `git grep -p -e SECRET-b -e return`, captured from the real tool.
#[test]
fn git_grep_show_function_without_line_numbers() {
    check(
        "git grep -p -e SECRET-b -e return",
        "secrets/long.txt=filler4\nsecrets/long.txt:B=SECRET-b\nsrc/app.ts=function main() {\nsrc/app.ts:  return key\n",
        &["src/app.ts:  return key"],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -p TOKEN`, captured from the real tool.
#[test]
fn rg_pretty_piped() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -p TOKEN",
        "\x1b[0m\x1b[35mreadme\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:readme \x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m line\n\n\x1b[0m\x1b[35mdocs/readme.md\x1b[0m\n\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m usage\n\n\x1b[0m\x1b[35msecrets/k.txt\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-token2\n\n\x1b[0m\x1b[35mmy dir/secrets/my key.txt\x1b[0m\n\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-spaced\n",
        &[],
    );
}

/// `rg -n --heading -A1 --context-separator='' SECRET secrets/long.txt readme`, captured from the real tool.
#[test]
fn rg_heading_empty_context_separator() {
    check(
        "rg -n --heading -A1 --context-separator='' SECRET secrets/long.txt readme",
        "secrets/long.txt\n1:A=SECRET-a\n2-filler1\n\n6:B=SECRET-b\n",
        &[],
    );
}

/// `rg -n --heading -A1 --context-separator='...' SECRET secrets/long.txt readme`, captured from the real tool.
#[test]
fn rg_heading_custom_context_separator() {
    check(
        "rg -n --heading -A1 --context-separator='...' SECRET secrets/long.txt readme",
        "secrets/long.txt\n1:A=SECRET-a\n2-filler1\n...\n6:B=SECRET-b\n",
        &[],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -n --field-match-separator=' | ' --field-context-separator=' / ' -A1 TOKEN`, captured from the real tool.
#[test]
fn rg_field_separators() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -n --field-match-separator=' | ' --field-context-separator=' / ' -A1 TOKEN",
        "readme | 1 | readme TOKEN line\nreadme / 2 / plain\n--\ndocs/readme.md | 3 | TOKEN usage\ndocs/readme.md / 4 / more docs\n--\nsecrets/k.txt | 1 | TOKEN=SECRET-token2\nsecrets/k.txt / 2 / PASS=SECRET-pass2\n--\nmy dir/secrets/my key.txt | 1 | TOKEN=SECRET-spaced\n",
        &[],
    );
}

/// `git diff --word-diff HEAD~2 HEAD~1 -- .env`, captured from the real tool.
#[test]
fn git_word_diff_more_lines_than_counts() {
    check(
        "git diff --word-diff HEAD~2 HEAD~1 -- .env",
        "diff --git a/.env b/.env\nindex 5512815..d81083e 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,2 @@\n[-API_KEY=sk-live-SECRET4-]\n[-START=12:30:00-]\n[-OTHER=SECRET-y-]{+NEWKEY=SECRET-new1+}\n{+NEWKEY2=SECRET-new2+}\n",
        &[],
    );
}

/// `git diff --color-words HEAD~2 HEAD~1 -- .env`, captured from the real tool.
#[test]
fn git_color_words_more_lines_than_counts() {
    check(
        "git diff --color-words HEAD~2 HEAD~1 -- .env",
        "\x1b[1mdiff --git a/.env b/.env\x1b[m\n\x1b[1mindex 5512815..d81083e 100644\x1b[m\n\x1b[1m--- a/.env\x1b[m\n\x1b[1m+++ b/.env\x1b[m\n\x1b[36m@@ -1,3 +1,2 @@\x1b[m\n\x1b[31mAPI_KEY=sk-live-SECRET4\x1b[m\n\x1b[31mSTART=12:30:00\x1b[m\n\x1b[31mOTHER=SECRET-y\x1b[m\x1b[32mNEWKEY=SECRET-new1\x1b[m\n\x1b[32mNEWKEY2=SECRET-new2\x1b[m\n",
        &[],
    );
}

/// `git diff --output-indicator-new='>' --output-indicator-old='<' --output-indicator-context='=' HEAD~2 HEAD~1 -- .env src/app.ts`, captured from the real tool.
#[test]
fn git_diff_output_indicators() {
    check(
        "git diff --output-indicator-new='>' --output-indicator-old='<' --output-indicator-context='=' HEAD~2 HEAD~1 -- .env src/app.ts",
        "diff --git a/.env b/.env\nindex 5512815..d81083e 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,2 @@\n<API_KEY=sk-live-SECRET4\n<START=12:30:00\n<OTHER=SECRET-y\n>NEWKEY=SECRET-new1\n>NEWKEY2=SECRET-new2\ndiff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n<const key = process.env.API_KEY // v2\n>const key = process.env.API_KEY // v3\n=export default key\n=function main() {\n=  return key\n",
        &[],
    );
}

/// `git diff --src-prefix=old_ --dst-prefix=new_ HEAD~4 HEAD~1 -- secrets .env`, captured from the real tool.
#[test]
fn git_diff_src_dst_prefix_without_slash() {
    check(
        "git diff --src-prefix=old_ --dst-prefix=new_ HEAD~4 HEAD~1 -- secrets .env",
        "diff --git old_.env new_.env\nindex 5512815..d81083e 100644\n--- old_.env\n+++ new_.env\n@@ -1,3 +1,2 @@\n-API_KEY=sk-live-SECRET4\n-START=12:30:00\n-OTHER=SECRET-y\n+NEWKEY=SECRET-new1\n+NEWKEY2=SECRET-new2\ndiff --git old_secrets/k.txt new_secrets/k.txt\nindex 234c07d..20bad27 100644\n--- old_secrets/k.txt\n+++ new_secrets/k.txt\n@@ -1,2 +1,3 @@\n TOKEN=SECRET-token2\n-PASS=SECRET-pass\n+PASS=SECRET-pass2\n+NEW=SECRET-feature\ndiff --git old_secrets/moved.txt new_secrets/moved.txt\nnew file mode 100644\nindex 0000000..6b763f5\n--- /dev/null\n+++ new_secrets/moved.txt\n@@ -0,0 +1,4 @@\n+line one\n+line two SECRET-moved\n+line three\n+line four\n",
        &[],
    );
}

/// `git diff --src-prefix=old/ --dst-prefix=new/ HEAD~4 HEAD~1 -- secrets .env src`, captured from the real tool.
#[test]
fn git_diff_src_dst_prefix_with_slash() {
    check(
        "git diff --src-prefix=old/ --dst-prefix=new/ HEAD~4 HEAD~1 -- secrets .env src",
        "diff --git old/.env new/.env\nindex 5512815..d81083e 100644\n--- old/.env\n+++ new/.env\n@@ -1,3 +1,2 @@\n-API_KEY=sk-live-SECRET4\n-START=12:30:00\n-OTHER=SECRET-y\n+NEWKEY=SECRET-new1\n+NEWKEY2=SECRET-new2\ndiff --git old/secrets/k.txt new/secrets/k.txt\nindex 234c07d..20bad27 100644\n--- old/secrets/k.txt\n+++ new/secrets/k.txt\n@@ -1,2 +1,3 @@\n TOKEN=SECRET-token2\n-PASS=SECRET-pass\n+PASS=SECRET-pass2\n+NEW=SECRET-feature\ndiff --git old/src/old.txt new/secrets/moved.txt\nsimilarity index 57%\nrename from src/old.txt\nrename to secrets/moved.txt\nindex 53f1df8..6b763f5 100644\n--- old/src/old.txt\n+++ new/secrets/moved.txt\n@@ -1,4 +1,4 @@\n line one\n-line two\n+line two SECRET-moved\n line three\n line four\ndiff --git old/src/app.ts new/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- old/src/app.ts\n+++ new/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\n+const key = process.env.API_KEY // v3\n export default key\n function main() {\n   return key\n",
        &["+const key = process.env.API_KEY // v3"],
    );
}

/// `git diff --line-prefix='> ' HEAD~2 HEAD~1 -- .env`, captured from the real tool.
#[test]
fn git_diff_line_prefix() {
    check(
        "git diff --line-prefix='> ' HEAD~2 HEAD~1 -- .env",
        "> diff --git a/.env b/.env\n> index 5512815..d81083e 100644\n> --- a/.env\n> +++ b/.env\n> @@ -1,3 +1,2 @@\n> -API_KEY=sk-live-SECRET4\n> -START=12:30:00\n> -OTHER=SECRET-y\n> +NEWKEY=SECRET-new1\n> +NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `git diff HEAD~3 HEAD~2 --no-prefix --stat -p -M`, captured from the real tool.
#[test]
fn git_diff_no_prefix_rename_into_blocked() {
    check(
        "git diff HEAD~3 HEAD~2 --no-prefix --stat -p -M",
        " src/old.txt => secrets/moved.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\ndiff --git src/old.txt secrets/moved.txt\nsimilarity index 57%\nrename from src/old.txt\nrename to secrets/moved.txt\nindex 53f1df8..6b763f5 100644\n--- src/old.txt\n+++ secrets/moved.txt\n@@ -1,4 +1,4 @@\n line one\n-line two\n+line two SECRET-moved\n line three\n line four\n",
        &[],
    );
}

/// `git show --stat -p -M HEAD~2`, captured from the real tool.
#[test]
fn git_show_stat_p_rename_into_blocked() {
    check(
        "git show --stat -p -M HEAD~2",
        "commit 95399366aaf72d035bcec4d9f785946d040269b9\nAuthor: T <t@t>\nDate:   Sun Dec 6 14:22:14 2026 +0000\n\n    move into secrets\n---\n src/old.txt => secrets/moved.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\ndiff --git a/src/old.txt b/secrets/moved.txt\nsimilarity index 57%\nrename from src/old.txt\nrename to secrets/moved.txt\nindex 53f1df8..6b763f5 100644\n--- a/src/old.txt\n+++ b/secrets/moved.txt\n@@ -1,4 +1,4 @@\n line one\n-line two\n+line two SECRET-moved\n line three\n line four\n",
        &[],
    );
}

/// `git log --graph -p --format=%s --all -6`, captured from the real tool.
#[test]
fn git_log_graph_merge_lanes() {
    check(
        "git log --graph -p --format=%s --all -6",
        "* long\n| \n| diff --git a/secrets/long.txt b/secrets/long.txt\n| new file mode 100644\n| index 0000000..6560129\n| --- /dev/null\n| +++ b/secrets/long.txt\n| @@ -0,0 +1,6 @@\n| +A=SECRET-a\n| +filler1\n| +filler2\n| +filler3\n| +filler4\n| +B=SECRET-b\n* rewrite env\n| \n| diff --git a/.env b/.env\n| index 5512815..d81083e 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,2 @@\n| -API_KEY=sk-live-SECRET4\n| -START=12:30:00\n| -OTHER=SECRET-y\n| +NEWKEY=SECRET-new1\n| +NEWKEY2=SECRET-new2\n| diff --git a/src/app.ts b/src/app.ts\n| index 01d4069..6c7dfea 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,4 +1,4 @@\n| -const key = process.env.API_KEY // v2\n| +const key = process.env.API_KEY // v3\n|  export default key\n|  function main() {\n|    return key\n* move into secrets\n| \n| diff --git a/src/old.txt b/secrets/moved.txt\n| similarity index 57%\n| rename from src/old.txt\n| rename to secrets/moved.txt\n| index 53f1df8..6b763f5 100644\n| --- a/src/old.txt\n| +++ b/secrets/moved.txt\n| @@ -1,4 +1,4 @@\n|  line one\n| -line two\n| +line two SECRET-moved\n|  line three\n|  line four\n*   merge feature\n|\\  \n| * feature: rotate\n| | \n| | diff --git a/secrets/k.txt b/secrets/k.txt\n| | index 234c07d..20bad27 100644\n| | --- a/secrets/k.txt\n| | +++ b/secrets/k.txt\n| | @@ -1,2 +1,3 @@\n| |  TOKEN=SECRET-token2\n| | -PASS=SECRET-pass\n| | +PASS=SECRET-pass2\n| | +NEW=SECRET-feature\n* | env main\n| | \n| | diff --git a/.env b/.env\n| | index 4b54f23..5512815 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET3\n| | +API_KEY=sk-live-SECRET4\n| |  START=12:30:00\n| | -OTHER=SECRET-x\n| | +OTHER=SECRET-y\n",
        &[],
    );
}

/// `git log --graph -p --cc --format=%s -6`, captured from the real tool.
#[test]
fn git_log_graph_merge_cc() {
    check(
        "git log --graph -p --cc --format=%s -6",
        "* long\n| \n| diff --git a/secrets/long.txt b/secrets/long.txt\n| new file mode 100644\n| index 0000000..6560129\n| --- /dev/null\n| +++ b/secrets/long.txt\n| @@ -0,0 +1,6 @@\n| +A=SECRET-a\n| +filler1\n| +filler2\n| +filler3\n| +filler4\n| +B=SECRET-b\n* rewrite env\n| \n| diff --git a/.env b/.env\n| index 5512815..d81083e 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,2 @@\n| -API_KEY=sk-live-SECRET4\n| -START=12:30:00\n| -OTHER=SECRET-y\n| +NEWKEY=SECRET-new1\n| +NEWKEY2=SECRET-new2\n| diff --git a/src/app.ts b/src/app.ts\n| index 01d4069..6c7dfea 100644\n| --- a/src/app.ts\n| +++ b/src/app.ts\n| @@ -1,4 +1,4 @@\n| -const key = process.env.API_KEY // v2\n| +const key = process.env.API_KEY // v3\n|  export default key\n|  function main() {\n|    return key\n* move into secrets\n| \n| diff --git a/src/old.txt b/secrets/moved.txt\n| similarity index 57%\n| rename from src/old.txt\n| rename to secrets/moved.txt\n| index 53f1df8..6b763f5 100644\n| --- a/src/old.txt\n| +++ b/secrets/moved.txt\n| @@ -1,4 +1,4 @@\n|  line one\n| -line two\n| +line two SECRET-moved\n|  line three\n|  line four\n*   merge feature\n|\\  \n| | \n| * feature: rotate\n| | \n| | diff --git a/secrets/k.txt b/secrets/k.txt\n| | index 234c07d..20bad27 100644\n| | --- a/secrets/k.txt\n| | +++ b/secrets/k.txt\n| | @@ -1,2 +1,3 @@\n| |  TOKEN=SECRET-token2\n| | -PASS=SECRET-pass\n| | +PASS=SECRET-pass2\n| | +NEW=SECRET-feature\n* | env main\n| | \n| | diff --git a/.env b/.env\n| | index 4b54f23..5512815 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET3\n| | +API_KEY=sk-live-SECRET4\n| |  START=12:30:00\n| | -OTHER=SECRET-x\n| | +OTHER=SECRET-y\n",
        &[],
    );
}

/// `git log --graph -p -m --format=%s HEAD~3 -1`, captured from the real tool.
#[test]
fn git_log_graph_first_parent_m() {
    check(
        "git log --graph -p -m --format=%s HEAD~3 -1",
        "*   merge feature\n|\\  \n| | \n| | diff --git a/secrets/k.txt b/secrets/k.txt\n| | index 234c07d..20bad27 100644\n| | --- a/secrets/k.txt\n| | +++ b/secrets/k.txt\n| | @@ -1,2 +1,3 @@\n| |  TOKEN=SECRET-token2\n| | -PASS=SECRET-pass\n| | +PASS=SECRET-pass2\n| | +NEW=SECRET-feature\n| | merge feature\n| | \n| | diff --git a/.env b/.env\n| | index 4b54f23..5512815 100644\n| | --- a/.env\n| | +++ b/.env\n| | @@ -1,3 +1,3 @@\n| | -API_KEY=sk-live-SECRET3\n| | +API_KEY=sk-live-SECRET4\n| |  START=12:30:00\n| | -OTHER=SECRET-x\n| | +OTHER=SECRET-y\n| | diff --git a/docs/readme.md b/docs/readme.md\n| | index 6b78021..fd1c9f3 100644\n| | --- a/docs/readme.md\n| | +++ b/docs/readme.md\n| | @@ -1,3 +1,4 @@\n| |  # Docs\n| |  API_KEY docs\n| |  TOKEN usage\n| | +more docs\n",
        &[],
    );
}

/// `git log --graph -L1,2:.env --format=%s`, captured from the real tool.
#[test]
fn git_log_l_graph() {
    check(
        "git log --graph -L1,2:.env --format=%s",
        "* rewrite env\n| \n| diff --git a/.env b/.env\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,2 @@\n| -API_KEY=sk-live-SECRET4\n| -START=12:30:00\n| -OTHER=SECRET-y\n| +NEWKEY=SECRET-new1\n| +NEWKEY2=SECRET-new2\n* env main\n| \n| diff --git a/.env b/.env\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n* init\n  \n  diff --git a/.env b/.env\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n",
        &[],
    );
}

/// `git log --graph -p --format=%s -- .env`, captured from the real tool. The root commit's lines are drawn behind spaces, not `| `.
#[test]
fn git_log_graph_root_commit() {
    check(
        "git log --graph -p --format=%s -- .env",
        "* rewrite env\n| \n| diff --git a/.env b/.env\n| index 5512815..d81083e 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,2 @@\n| -API_KEY=sk-live-SECRET4\n| -START=12:30:00\n| -OTHER=SECRET-y\n| +NEWKEY=SECRET-new1\n| +NEWKEY2=SECRET-new2\n* env main\n| \n| diff --git a/.env b/.env\n| index 4b54f23..5512815 100644\n| --- a/.env\n| +++ b/.env\n| @@ -1,3 +1,3 @@\n| -API_KEY=sk-live-SECRET3\n| +API_KEY=sk-live-SECRET4\n|  START=12:30:00\n| -OTHER=SECRET-x\n| +OTHER=SECRET-y\n* init\n  \n  diff --git a/.env b/.env\n  new file mode 100644\n  index 0000000..4b54f23\n  --- /dev/null\n  +++ b/.env\n  @@ -0,0 +1,3 @@\n  +API_KEY=sk-live-SECRET3\n  +START=12:30:00\n  +OTHER=SECRET-x\n",
        &[],
    );
}

/// `cd odd/wd && git diff --word-diff`, captured from the real tool. `.env`'s three lines became one; its hunk counts 3 old lines but word diff prints 1. The blocked
/// hunk still has lines to come, so the next file's header is read as `.env`'s (the doubt
/// withholds); the next file's hunk is its own again.
#[test]
fn git_word_diff_fewer_lines_than_counts() {
    check(
        "cd odd/wd && git diff --word-diff",
        "diff --git a/.env b/.env\nindex 78929b9..a259bda 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1 @@\nA=SECRET1 B=SECRET2 C=SECRET3\ndiff --git a/src/app.ts b/src/app.ts\nindex 3b6bb8a..b0353fb 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\nconst x = [-1-]{+2+}\n",
        &["{+2+}"],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -p --no-heading TOKEN`, captured from the real tool.
#[test]
fn rg_pretty_no_heading() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -p --no-heading TOKEN",
        "\x1b[0m\x1b[35mreadme\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:readme \x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m line\n\x1b[0m\x1b[35mdocs/readme.md\x1b[0m:\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m usage\n\x1b[0m\x1b[35msecrets/k.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-token2\n\x1b[0m\x1b[35mmy dir/secrets/my key.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mTOKEN\x1b[0m=SECRET-spaced\n",
        &[],
    );
}

/// `git grep -n -z -A1 TOKEN`, captured from the real tool.
#[test]
fn git_grep_null() {
    check(
        "git grep -n -z -A1 TOKEN",
        "docs/readme.md\x003\0TOKEN usage\ndocs/readme.md\x004\0more docs\n--\nmy dir/secrets/my key.txt\x001\0TOKEN=SECRET-spaced\n--\nreadme\x001\0readme TOKEN line\nreadme\x002\0plain\n--\nsecrets/k.txt\x001\0TOKEN=SECRET-token2\nsecrets/k.txt\x002\0PASS=SECRET-pass2\n",
        &[],
    );
}

/// `rg --hidden -g '!odd' -g '!.git' -n --null -A1 TOKEN`, captured from the real tool.
#[test]
fn rg_null() {
    check(
        "rg --hidden -g '!odd' -g '!.git' -n --null -A1 TOKEN",
        "readme\x001:readme TOKEN line\nreadme\x002-plain\n--\ndocs/readme.md\x003:TOKEN usage\ndocs/readme.md\x004-more docs\n--\nsecrets/k.txt\x001:TOKEN=SECRET-token2\nsecrets/k.txt\x002-PASS=SECRET-pass2\n--\nmy dir/secrets/my key.txt\x001:TOKEN=SECRET-spaced\n",
        &[],
    );
}

/// `head odd/secrets/mimic.txt readme`, captured from the real tool. The blocked file's own line reads `==> readme <==`.
#[test]
fn head_blocked_file_mimics_banner() {
    check(
        "head odd/secrets/mimic.txt readme",
        "==> odd/secrets/mimic.txt <==\nSECRET-top\n==> readme <==\ndiff --git a/readme b/readme\n@@ -1 +1 @@\n1:SECRET-numbered\n\n==> readme <==\nreadme TOKEN line\nplain\n",
        &[],
    );
}

/// `git diff --no-index odd/secrets/plain.txt odd/secrets/mimic.txt`, captured from the real tool. The blocked file's own lines read like a diff's headers.
#[test]
fn git_diff_no_index_blocked_mimics_headers() {
    check(
        "git diff --no-index odd/secrets/plain.txt odd/secrets/mimic.txt",
        "diff --git a/odd/secrets/plain.txt b/odd/secrets/mimic.txt\nindex 20b20ae..e893ca6 100644\n--- a/odd/secrets/plain.txt\n+++ b/odd/secrets/mimic.txt\n@@ -1 +1,5 @@\n-TOKEN=SECRET-plain\n+SECRET-top\n+==> readme <==\n+diff --git a/readme b/readme\n+@@ -1 +1 @@\n+1:SECRET-numbered\n",
        &[],
    );
}

/// `cd odd && grep -rn -A4 top secrets`, captured from the real tool.
#[test]
fn grep_rn_blocked_mimics_numbered() {
    check(
        "cd odd && grep -rn -A4 top secrets",
        "secrets/mimic.txt:1:SECRET-top\nsecrets/mimic.txt-2-==> readme <==\nsecrets/mimic.txt-3-diff --git a/readme b/readme\nsecrets/mimic.txt-4-@@ -1 +1 @@\nsecrets/mimic.txt-5-1:SECRET-numbered\n",
        &[],
    );
}

/// `git blame -f .env`, captured from the real tool. The command names `.env`; the output names it on every line.
#[test]
fn git_blame_f() {
    check(
        "git blame -f .env",
        "46d483cf .env (T 2026-12-06 14:22:14 +0000 1) NEWKEY=SECRET-new1\n46d483cf .env (T 2026-12-06 14:22:14 +0000 2) NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `git blame --porcelain secrets/k.txt`, captured from the real tool. The command names the file; the output names it in `filename`.
#[test]
fn git_blame_porcelain() {
    check(
        "git blame --porcelain secrets/k.txt",
        "96be3f5209b6678bca01b92640f8dcad46bddf71 1 1 1\nauthor T\nauthor-mail <t@t>\nauthor-time 1796566921\nauthor-tz +0000\ncommitter T\ncommitter-mail <t@t>\ncommitter-time 1796566921\ncommitter-tz +0000\nsummary init\nboundary\nfilename secrets/k.txt\n\tTOKEN=SECRET-token2\n69b97833e7e74005e4e6e79540557da04dce1cee 2 2 2\nauthor T\nauthor-mail <t@t>\nauthor-time 1796566934\nauthor-tz +0000\ncommitter T\ncommitter-mail <t@t>\ncommitter-time 1796566934\ncommitter-tz +0000\nsummary feature: rotate\nprevious 6f4bee91b39bf1ada99815e5c97eac997eeddfee secrets/k.txt\nfilename secrets/k.txt\n\tPASS=SECRET-pass2\n69b97833e7e74005e4e6e79540557da04dce1cee 3 3\n\tNEW=SECRET-feature\n",
        &[],
    );
}

/// `more .env src/app.ts`, captured from the real tool.
#[test]
fn more_banners() {
    check(
        "more .env src/app.ts",
        "::::::::::::::\n.env\n::::::::::::::\nNEWKEY=SECRET-new1\nNEWKEY2=SECRET-new2\n::::::::::::::\nsrc/app.ts\n::::::::::::::\nconst key = process.env.API_KEY // v3\nexport default key\nfunction main() {\n  return key\n}\n",
        &[],
    );
}

/// `git ls-files secrets | xargs more`, captured from the real tool.
#[test]
fn more_banners_via_xargs() {
    check(
        "git ls-files secrets | xargs more",
        "::::::::::::::\nsecrets/k.txt\n::::::::::::::\nTOKEN=SECRET-token2\nPASS=SECRET-pass2\nNEW=SECRET-feature\n::::::::::::::\nsecrets/long.txt\n::::::::::::::\nA=SECRET-a\nfiller1\nfiller2\nfiller3\nfiller4\nB=SECRET-b\n::::::::::::::\nsecrets/moved.txt\n::::::::::::::\nline one\nline two SECRET-moved\nline three\nline four\n",
        &[],
    );
}

/// `pr -n -l 12 readme secrets/k.txt`, captured from the real tool.
#[test]
fn pr_headers() {
    check(
        "pr -n -l 12 readme secrets/k.txt",
        "\n\n2026-12-06 14:22                      readme                      Page 1\n\n\n    1\treadme TOKEN line\n    2\tplain\n\n\n\n\n\n\n\n2026-12-06 14:22                  secrets/k.txt                   Page 1\n\n\n    1\tTOKEN=SECRET-token2\n    2\tPASS=SECRET-pass2\n\n\n\n\n\n\n\n2026-12-06 14:22                  secrets/k.txt                   Page 2\n\n\n    3\tNEW=SECRET-feature\n\n\n\n\n\n\n",
        &[],
    );
}

/// `unzip -c odd/backup.zip`, captured from the real tool. The command names only the archive.
#[test]
fn unzip_c() {
    check(
        "unzip -c odd/backup.zip",
        "Archive:  odd/backup.zip\n  inflating: .env                    \nNEWKEY=SECRET-new1\nNEWKEY2=SECRET-new2\n\n  inflating: secrets/k.txt           \nTOKEN=SECRET-token2\nPASS=SECRET-pass2\nNEW=SECRET-feature\n\n  inflating: src/app.ts              \nconst key = process.env.API_KEY // v3\nexport default key\nfunction main() {\n  return key\n}\n\n",
        &[],
    );
}

/// `awk '{print FILENAME ": " $0}' .env src/app.ts`, captured from the real tool.
#[test]
fn awk_filename() {
    check(
        "awk '{print FILENAME \": \" $0}' .env src/app.ts",
        ".env: NEWKEY=SECRET-new1\n.env: NEWKEY2=SECRET-new2\nsrc/app.ts: const key = process.env.API_KEY // v3\nsrc/app.ts: export default key\nsrc/app.ts: function main() {\nsrc/app.ts:   return key\nsrc/app.ts: }\n",
        &["src/app.ts: export default key"],
    );
}

/// `awk '{print FILENAME, $0}' .env src/app.ts`, captured from the real tool.
#[test]
fn awk_filename_space() {
    check(
        "awk '{print FILENAME, $0}' .env src/app.ts",
        ".env NEWKEY=SECRET-new1\n.env NEWKEY2=SECRET-new2\nsrc/app.ts const key = process.env.API_KEY // v3\nsrc/app.ts export default key\nsrc/app.ts function main() {\nsrc/app.ts   return key\nsrc/app.ts }\n",
        &[],
    );
}

/// `sed -s -n '1F;p' secrets/k.txt readme`, captured from the real tool.
#[test]
fn sed_f_command() {
    check(
        "sed -s -n '1F;p' secrets/k.txt readme",
        "secrets/k.txt\nTOKEN=SECRET-token2\nPASS=SECRET-pass2\nNEW=SECRET-feature\nreadme\nreadme TOKEN line\nplain\n",
        &[],
    );
}

/// `find . -name '*.txt' -not -path './odd/*' -exec grep -H TOKEN {} \;`, captured from the real tool.
#[test]
fn find_exec_grep_h() {
    check(
        "find . -name '*.txt' -not -path './odd/*' -exec grep -H TOKEN {} \\;",
        "./my dir/secrets/my key.txt:TOKEN=SECRET-spaced\n./secrets/k.txt:TOKEN=SECRET-token2\n",
        &[],
    );
}

/// `find . -name '*.txt' -not -path './odd/*' -print0 | xargs -0 grep -n -A1 TOKEN`, captured from the real tool.
#[test]
fn find_print0_xargs_grep_n() {
    check(
        "find . -name '*.txt' -not -path './odd/*' -print0 | xargs -0 grep -n -A1 TOKEN",
        "./my dir/secrets/my key.txt:1:TOKEN=SECRET-spaced\n--\n./secrets/k.txt:1:TOKEN=SECRET-token2\n./secrets/k.txt-2-PASS=SECRET-pass2\n",
        &[],
    );
}

/// `git ls-files | xargs head -n 2`, captured from the real tool.
#[test]
fn xargs_head_n() {
    check(
        "git ls-files | xargs head -n 2",
        "==> .env <==\nNEWKEY=SECRET-new1\nNEWKEY2=SECRET-new2\n\n==> config-2024-01/.env <==\nAPI_KEY=SECRET-dated\nOTHER=SECRET-ctx\n\n==> docs/readme.md <==\n# Docs\nAPI_KEY docs\n\n==> readme <==\nreadme TOKEN line\nplain\n\n==> secrets/k.txt <==\nTOKEN=SECRET-token2\nPASS=SECRET-pass2\n\n==> secrets/long.txt <==\nA=SECRET-a\nfiller1\n\n==> secrets/moved.txt <==\nline one\nline two SECRET-moved\n\n==> src/app.ts <==\nconst key = process.env.API_KEY // v3\nexport default key\n",
        &[],
    );
}

/// `cd odd && grep -r TOKEN 'secrets/note ' secrets/plain.txt`, captured from the real tool. `odd/secrets/note ` (a name ending in a space).
#[test]
fn grep_path_with_trailing_space() {
    check(
        "cd odd && grep -r TOKEN 'secrets/note ' secrets/plain.txt",
        "secrets/note :TOKEN=SECRET-trailing\nsecrets/plain.txt:TOKEN=SECRET-plain\n",
        &[],
    );
}

/// `cd odd && grep -rn TOKEN .`, captured from the real tool. `odd/secrets/evil\nname.txt` (a name holding a newline).
#[test]
#[ignore = "known gap: a name holding a newline is split over two lines; its tail \
            (`name.txt:1:`) does not name the blocked file"]
fn grep_path_with_newline() {
    check(
        "cd odd && grep -rn TOKEN .",
        "./secrets/evil\nname.txt:1:TOKEN=SECRET-newline\n./secrets/note :1:TOKEN=SECRET-trailing\n./secrets/plain.txt:1:TOKEN=SECRET-plain\n",
        &[],
    );
}

/// `cat odd/nonl.ts; rg -n --hidden -g '!odd' -g '!.git' TOKEN`, captured from the real tool. `odd/nonl.ts` has no final newline.
#[test]
fn output_glued_after_missing_newline() {
    check(
        "cat odd/nonl.ts; rg -n --hidden -g '!odd' -g '!.git' TOKEN",
        "export const k = 1readme:1:readme TOKEN line\ndocs/readme.md:3:TOKEN usage\nsecrets/k.txt:1:TOKEN=SECRET-token2\nmy dir/secrets/my key.txt:1:TOKEN=SECRET-spaced\n",
        &["readme:1:readme TOKEN line"],
    );
}

/// `cat odd/nonl.ts; rg --hidden -g '!odd' -g '!.git' NEWKEY`, captured from the real tool. `odd/nonl.ts` has no final newline.
#[test]
#[ignore = "known gap: a name glued to the previous output's last line (`1.env:`) is not read; \
            the command vetting judges `rg` over a tree with blocked files before it runs"]
fn output_glued_after_missing_newline_dotenv() {
    check(
        "cat odd/nonl.ts; rg --hidden -g '!odd' -g '!.git' NEWKEY",
        "export const k = 1.env:NEWKEY=SECRET-new1\n.env:NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `git diff HEAD~2 HEAD~1 -- src | head -n 6; grep -rn TOKEN secrets readme`, captured from the real tool.
#[test]
fn truncated_diff_then_grep() {
    check(
        "git diff HEAD~2 HEAD~1 -- src | head -n 6; grep -rn TOKEN secrets readme",
        "diff --git a/src/app.ts b/src/app.ts\nindex 01d4069..6c7dfea 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,4 +1,4 @@\n-const key = process.env.API_KEY // v2\nsecrets/k.txt:1:TOKEN=SECRET-token2\nreadme:1:readme TOKEN line\n",
        &["readme:1:readme TOKEN line"],
    );
}

/// `diff -u src/app.ts docs/readme.md; grep -rn TOKEN secrets readme`, captured from the real tool.
#[test]
fn diffutils_then_grep() {
    check(
        "diff -u src/app.ts docs/readme.md; grep -rn TOKEN secrets readme",
        "--- src/app.ts\t2026-12-06 14:22:14.598547232 +0000\n+++ docs/readme.md\t2026-12-06 14:22:14.552591399 +0000\n@@ -1,5 +1,4 @@\n-const key = process.env.API_KEY // v3\n-export default key\n-function main() {\n-  return key\n-}\n+# Docs\n+API_KEY docs\n+TOKEN usage\n+more docs\nsecrets/k.txt:1:TOKEN=SECRET-token2\nreadme:1:readme TOKEN line\n",
        &["readme:1:readme TOKEN line"],
    );
}

/// `mkdir -p /tmp/rt2d/a /tmp/rt2d/b && cp src/app.ts /tmp/rt2d/a/ && cp docs/readme.md /tmp/rt2d/b/app.ts && diff -ru /tmp/rt2d/a /tmp/rt2d/b; rg -n TOKEN secrets readme`, captured from the real tool.
#[test]
fn diff_r_then_rg() {
    check(
        "mkdir -p /tmp/rt2d/a /tmp/rt2d/b && cp src/app.ts /tmp/rt2d/a/ && cp docs/readme.md /tmp/rt2d/b/app.ts && diff -ru /tmp/rt2d/a /tmp/rt2d/b; rg -n TOKEN secrets readme",
        "diff -ru /tmp/rt2d/a/app.ts /tmp/rt2d/b/app.ts\n--- /tmp/rt2d/a/app.ts\t2026-12-06 14:23:56.574124717 +0000\n+++ /tmp/rt2d/b/app.ts\t2026-12-06 14:23:56.577418158 +0000\n@@ -1,5 +1,4 @@\n-const key = process.env.API_KEY // v3\n-export default key\n-function main() {\n-  return key\n-}\n+# Docs\n+API_KEY docs\n+TOKEN usage\n+more docs\nreadme:1:readme TOKEN line\nsecrets/k.txt:1:TOKEN=SECRET-token2\n",
        &["readme:1:readme TOKEN line"],
    );
}

/// `head -n 2 src/app.ts readme; grep -rn TOKEN secrets`, captured from the real tool.
#[test]
fn head_banners_then_grep() {
    check(
        "head -n 2 src/app.ts readme; grep -rn TOKEN secrets",
        "==> src/app.ts <==\nconst key = process.env.API_KEY // v3\nexport default key\n\n==> readme <==\nreadme TOKEN line\nplain\nsecrets/k.txt:1:TOKEN=SECRET-token2\n",
        &[],
    );
}

/// `tail -n 1 docs/readme.md readme && rg -n --hidden -g '!odd' NEWKEY`, captured from the real tool.
#[test]
fn tail_banners_then_rg() {
    check(
        "tail -n 1 docs/readme.md readme && rg -n --hidden -g '!odd' NEWKEY",
        "==> docs/readme.md <==\nmore docs\n\n==> readme <==\nplain\n.env:1:NEWKEY=SECRET-new1\n.env:2:NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `rg -n --heading key src; rg TOKEN secrets`, captured from the real tool.
#[test]
fn heading_then_unnumbered() {
    check(
        "rg -n --heading key src; rg TOKEN secrets",
        "src/app.ts\n1:const key = process.env.API_KEY // v3\n2:export default key\n4:  return key\nsecrets/k.txt:TOKEN=SECRET-token2\n",
        &["1:const key"],
    );
}

/// `git grep -n --heading --break key -- src; rg --hidden -g '!odd' -g '!.git' NEWKEY`, captured from the real tool.
#[test]
fn git_grep_heading_break_then_rg() {
    check(
        "git grep -n --heading --break key -- src; rg --hidden -g '!odd' -g '!.git' NEWKEY",
        "src/app.ts\n1:const key = process.env.API_KEY // v3\n2:export default key\n4:  return key\n.env:NEWKEY=SECRET-new1\n.env:NEWKEY2=SECRET-new2\n",
        &[],
    );
}

/// `printf 'A=SECRET-crlf\r\nB=2\r\n' > odd/secrets/crlf.txt; grep -rn -A1 A= odd/secrets/crlf.txt src/app.ts`, captured from the real tool.
#[test]
fn grep_crlf_output() {
    check(
        "printf 'A=SECRET-crlf\\r\\nB=2\\r\\n' > odd/secrets/crlf.txt; grep -rn -A1 A= odd/secrets/crlf.txt src/app.ts",
        "odd/secrets/crlf.txt:1:A=SECRET-crlf\r\nodd/secrets/crlf.txt-2-B=2\r\n",
        &[],
    );
}

/// `awk 'BEGIN{s=""; for(i=0;i<40;i++) s=s "a-1-"; print s "SECRET-long"}' > odd/secrets/long-line.txt; grep -r SECRET-long odd`, captured from the real tool.
#[test]
fn grep_long_line() {
    check(
        "awk 'BEGIN{s=\"\"; for(i=0;i<40;i++) s=s \"a-1-\"; print s \"SECRET-long\"}' > odd/secrets/long-line.txt; grep -r SECRET-long odd",
        "odd/secrets/long-line.txt:a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-a-1-SECRET-long\n",
        &[],
    );
}

/// `strings -f -n 6 .env readme`, captured from the real tool.
#[test]
fn strings_f_blocked() {
    check(
        "strings -f -n 6 .env readme",
        ".env: NEWKEY=SECRET-new1\n.env: NEWKEY2=SECRET-new2\nreadme: readme TOKEN line\n",
        &["readme: readme TOKEN line"],
    );
}

/// `git show --stat -p HEAD~0`, captured from the real tool.
#[test]
fn git_diff_stat_p_new_blocked() {
    check(
        "git show --stat -p HEAD~0",
        "commit d4f46acf7a99cab72455de0b97daebb9261ca5db\nAuthor: T <t@t>\nDate:   Sun Dec 6 14:22:33 2026 +0000\n\n    long\n---\n secrets/long.txt | 6 ++++++\n 1 file changed, 6 insertions(+)\n\ndiff --git a/secrets/long.txt b/secrets/long.txt\nnew file mode 100644\nindex 0000000..6560129\n--- /dev/null\n+++ b/secrets/long.txt\n@@ -0,0 +1,6 @@\n+A=SECRET-a\n+filler1\n+filler2\n+filler3\n+filler4\n+B=SECRET-b\n",
        &[],
    );
}
