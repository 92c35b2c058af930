//! `roo/mentions/resolveImages` over stdio: image mentions become data URLs within the
//! original's limits (5 MB each, 20 MB together, 20 per message), supplied images are
//! normalised, and every byte passes the read gate (ignored files, links to them, files outside
//! `cwd` and FIFOs are skipped and never leak).

use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const PNG: &str = "PNGDATA";
const PNG_URL: &str = "data:image/png;base64,UE5HREFUQQ==";

fn fixture() -> Fixture {
    Fixture::new(&[
        (".rooignore", "secrets/\nhidden.png\n"),
        ("img/a.png", PNG),
        ("img/b.JPG", "JPG"),
        ("img/c.svg", "<svg/>"),
        ("img/my pic.gif", "GIF"),
        ("hidden.png", "SECRET-HIDDEN"),
        ("secrets/s.png", "SECRET-S"),
        ("notes.txt", "text"),
        ("top.png", "TOP"),
    ])
}

fn start(fixture: &Fixture) -> Server {
    let mut server = Server::spawn();
    server
        .initialize(&[fixture.root()], Value::Null)
        .expect("initialize");
    server
}

fn resolve(server: &mut Server, params: Value) -> Value {
    server.call("roo/mentions/resolveImages", params)
}

#[test]
fn image_mentions_become_data_urls_after_the_supplied_ones() {
    let fixture = fixture();
    let mut server = start(&fixture);
    let text =
        "Look @/img/a.png, @/img/b.JPG @/img/c.svg @/img/my\\ pic.gif @/notes.txt @/img/a.png";
    let result = resolve(
        &mut server,
        json!({
            "text": text,
            "images": [
                "data:image/webp;base64,V0VCUA==",
                "data:image/webp;base64,V0VCUA==",
                "data:text/plain;base64,VEVYVA==",
                "data:image/png;base64,not base64!",
                "https://example.com/x.png",
                PNG_URL,
            ],
        }),
    );
    assert_eq!(result["text"], text, "the text is returned unchanged");
    assert_eq!(
        result["images"],
        json!([
            "data:image/webp;base64,V0VCUA==",
            PNG_URL,
            "data:image/jpeg;base64,SlBH",
            "data:image/svg+xml;base64,PHN2Zy8+",
            "data:image/gif;base64,R0lG",
        ])
    );
}

#[test]
fn nothing_is_read_when_the_model_has_no_images() {
    let fixture = fixture();
    let mut server = start(&fixture);
    let result = resolve(
        &mut server,
        json!({"text": "@/img/a.png", "images": ["bogus", "data:image/gif;base64,R0lG"], "supportsImages": false}),
    );
    assert_eq!(result["images"], json!(["data:image/gif;base64,R0lG"]));
}

#[test]
fn ignored_linked_outside_and_special_files_are_skipped_and_never_leak() {
    let fixture = fixture();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.png"), "SECRET-OUTSIDE").unwrap();
    fixture.symlink(fixture.path("hidden.png"), "link-hidden.png");
    fixture.symlink(fixture.path("secrets/s.png"), "img/link-secret.png");
    fixture.symlink(outside.path().join("o.png"), "img/link-outside.png");
    fixture.symlink(fixture.path("secrets"), "img/secret-dir");
    let fifo = fixture.path("img/pipe.png");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::create_dir(fixture.path("img/dir.png")).unwrap();
    let outside_rel = format!(
        "../{}/o.png",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let mut server = start(&fixture);
    let text = format!(
        "@/hidden.png @/secrets/s.png @/link-hidden.png @/img/link-secret.png \
         @/img/link-outside.png @/img/secret-dir/s.png @/img/pipe.png @/img/dir.png \
         @/{outside_rel} @/img/../../x.png @/img/a.png"
    );
    let result = resolve(&mut server, json!({ "text": text }));
    assert_eq!(result["images"], json!([PNG_URL]), "{result}");
    // An image outside `cwd` is skipped even though it is in the workspace.
    let result = resolve(
        &mut server,
        json!({"text": "@/../top.png @/a.png", "cwd": fixture.path("img")}),
    );
    assert_eq!(result["images"], json!([PNG_URL]));
}

#[test]
fn size_limits_per_image_and_in_total_and_the_count_limit() {
    let fixture = fixture();
    let mb = 1024.0 * 1024.0;
    let mut server = start(&fixture);
    // `a.png` is 7 bytes, `b.JPG` 3: a 5-byte limit keeps only b.
    let result = resolve(
        &mut server,
        json!({"text": "@/img/a.png @/img/b.JPG", "maxImageFileSize": 5.0 / mb}),
    );
    assert_eq!(result["images"], json!(["data:image/jpeg;base64,SlBH"]));
    // A 9-byte total: a (7) fits; b (3) and then svg (6) would pass it.
    let result = resolve(
        &mut server,
        json!({"text": "@/img/a.png @/img/b.JPG @/img/c.svg", "maxTotalImageSize": 9.0 / mb}),
    );
    assert_eq!(result["images"], json!([PNG_URL]));
    // Supplied images count against the limits too (Zoo's normalisation).
    let result = resolve(
        &mut server,
        json!({"images": ["data:image/png;base64,UE5HREFUQQ==", "data:image/gif;base64,R0lG"],
               "text": "", "maxImageFileSize": 5.0 / mb}),
    );
    assert_eq!(result["images"], json!(["data:image/gif;base64,R0lG"]));
    // 19 supplied images leave room for one mention; 25 supplied are cut to 20.
    let supplied: Vec<String> = (0..25)
        .map(|i| {
            format!(
                "data:image/png;base64,{}",
                base64_of(&format!("image{i:02}"))
            )
        })
        .collect();
    let result = resolve(
        &mut server,
        json!({"text": "@/img/a.png @/img/b.JPG", "images": supplied[..19]}),
    );
    let images = result["images"].as_array().unwrap();
    assert_eq!(images.len(), 20);
    assert_eq!(images[19], PNG_URL);
    let result = resolve(
        &mut server,
        json!({"text": "@/img/a.png", "images": supplied}),
    );
    assert_eq!(result["images"], json!(supplied[..20]));
}

#[test]
fn a_missing_text_is_an_invalid_params_error_naming_it() {
    let fixture = fixture();
    let mut server = start(&fixture);
    let error = server
        .request("roo/mentions/resolveImages", json!({"images": []}))
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("text"),
        "{error}"
    );
}

fn base64_of(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn the_documented_example_is_what_the_binary_answers() {
    let fixture = fixture();
    let mut server = start(&fixture);
    let method = "roo/mentions/resolveImages";
    let examples = crate::parity::documented_examples(method);
    let (request, response) = (&examples[0], &examples[1]);
    assert_eq!(request["method"], method);
    assert_eq!(
        resolve(&mut server, request["params"].clone()),
        response["result"]
    );
}

#[test]
fn only_user_authored_text_is_searched_for_images() {
    let fixture = fixture();
    let mut server = start(&fixture);
    let result = resolve(
        &mut server,
        json!({"text": "tool said @/img/a.png\n<user_message>\nsee @/img/b.JPG\n</user_message> @/img/c.svg"}),
    );
    assert_eq!(result["images"], json!(["data:image/jpeg;base64,SlBH"]));
}
