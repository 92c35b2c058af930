//! Property: no ignore-file bytes make a folder fail open. Whatever surrounds a rule (invalid
//! UTF-8, byte-order marks of any kind, NULs, CRs, huge lines, patterns that do not compile), the
//! path it blocked stays blocked, or the whole folder is blocked.

use proptest::prelude::*;
use roo_context_core::access::IgnoreFile;

/// One line of garbage: any bytes but a newline, and never a leading `!` (a negation may
/// legitimately re-include; everything else must not).
fn garbage_line() -> impl Strategy<Value = Vec<u8>> {
    let short = proptest::collection::vec(any::<u8>(), 0..120);
    let marks = prop_oneof![
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xFF\xFE".to_vec()),
        Just(b"\xFE\xFF".to_vec()),
        Just(b"\x00".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"[".to_vec()),
        Just(b"**/".to_vec()),
    ];
    let huge = (any::<u8>(), 10_000usize..60_000).prop_map(|(byte, len)| vec![byte; len]);
    let globby = (1usize..1_500).prop_map(|n| b"*a?".repeat(n));
    prop_oneof![
        6 => short,
        3 => proptest::collection::vec(marks, 1..6).prop_map(|m| m.concat()),
        1 => huge,
        1 => globby,
    ]
    .prop_map(|mut line| {
        for byte in &mut line {
            if *byte == b'\n' {
                *byte = b'x';
            }
        }
        if line.first() == Some(&b'!') {
            line[0] = b'#';
        }
        line
    })
}

/// Lines of garbage with the rules `secret.txt` and `secrets/` somewhere among them, joined
/// with LF or CRLF, optionally behind a byte-order mark.
fn ignore_file() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(garbage_line(), 0..8),
        proptest::collection::vec(garbage_line(), 0..8),
        any::<bool>(),
        prop_oneof![
            Just(Vec::new()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            Just(b"\xFF\xFE".to_vec()),
            Just(b"\xFE\xFF".to_vec()),
        ],
    )
        .prop_map(|(before, after, crlf, mark)| {
            let newline: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let mut lines = before;
            lines.push(b"secret.txt".to_vec());
            lines.push(b"secrets/".to_vec());
            lines.extend(after);
            let mut bytes = mark;
            for line in lines {
                bytes.extend(line);
                bytes.extend(newline);
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn garbage_around_a_rule_never_unblocks_its_path(bytes in ignore_file()) {
        let file = IgnoreFile::from_bytes(".rooignore", &bytes);
        let blocks_everything = file.unusable_reason().is_some();
        for path in ["secret.txt", "SECRET.TXT", "src/secret.txt", "secrets/key", "secrets/a/b"] {
            prop_assert!(
                blocks_everything || file.rules.matched(path).is_some(),
                "{path} allowed by {:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
            );
        }
        prop_assert!(file.rules.matched(".rooignore").is_some());
    }

    #[test]
    fn any_bytes_at_all_still_block_the_ignore_files(
        bytes in proptest::collection::vec(any::<u8>(), 0..4_000),
    ) {
        let file = IgnoreFile::from_bytes(".rooignore", &bytes);
        prop_assert!(file.rules.matched(".rooignore").is_some());
        prop_assert!(file.rules.matched(".zooignore").is_some());
    }
}
