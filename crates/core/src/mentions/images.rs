//! Image mentions (`resolveImageMentions`, mentions.md §3.10): `@/path/img.png` becomes a
//! `data:image/...;base64,...` attachment when the model supports images, within the size and
//! count limits, read through the read gate; images the host already attached are normalised.

use std::collections::HashSet;
use std::path::Path;

use crate::access::Policy;
use crate::fs::{FileSystem, OpenedObject, open_gated};
use crate::path::{Resolver, normalize_lexically};

use super::parse::user_spans;
use super::scan::{MentionKind, scan_mentions, unescape_spaces};

/// Most images one message carries (`MAX_IMAGES_PER_MESSAGE`).
pub const MAX_IMAGES_PER_MESSAGE: usize = 20;
/// Default per-image limit in MB (`DEFAULT_MAX_IMAGE_FILE_SIZE_MB`).
pub const DEFAULT_MAX_IMAGE_FILE_SIZE_MB: f64 = 5.0;
/// Default limit of all new images together in MB (`DEFAULT_MAX_TOTAL_IMAGE_SIZE_MB`).
pub const DEFAULT_MAX_TOTAL_IMAGE_SIZE_MB: f64 = 20.0;

const BYTES_PER_MB: f64 = 1024.0 * 1024.0;

/// The MIME type of a supported image extension (lower-cased, without the dot), as the
/// original's `IMAGE_MIME_TYPES`.
pub fn image_mime_type(extension: &str) -> Option<&'static str> {
    Some(match extension.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        "tiff" | "tif" => "image/tiff",
        "avif" => "image/avif",
        _ => return None,
    })
}

fn is_supported_mime_type(mime: &str) -> bool {
    matches!(
        mime,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/svg+xml"
            | "image/bmp"
            | "image/x-icon"
            | "image/tiff"
            | "image/avif"
    )
}

/// Options of one resolution (the original's parameters; sizes in MB, as JavaScript numbers).
#[derive(Debug, Clone)]
pub struct ImageOptions<'a> {
    /// The folder mentions are relative to; images must lie strictly inside it.
    pub cwd: &'a Path,
    /// Whether the model accepts images; when false nothing is read.
    pub supports_images: bool,
    /// Per-image limit in MB.
    pub max_image_file_size_mb: f64,
    /// Limit of all new images together in MB.
    pub max_total_image_size_mb: f64,
}

/// The image path bodies of `text` (user-authored spans only), unescaped, in order, each once.
pub fn image_mention_paths(text: &str) -> Vec<String> {
    let (spans, _) = user_spans(text);
    let mut seen = HashSet::new();
    let mut paths = Vec::new();
    for span in spans {
        let before = text[..span.start].chars().next_back();
        let slice = &text[span.clone()];
        for mention in scan_mentions(slice, before) {
            if mention.kind != MentionKind::Path {
                continue;
            }
            let relative = unescape_spaces(&slice[mention.body.start + 1..mention.body.end]);
            let extension = Path::new(&relative)
                .extension()
                .map(|e| e.to_string_lossy().into_owned());
            if extension.as_deref().and_then(image_mime_type).is_some()
                && seen.insert(relative.clone())
            {
                paths.push(relative);
            }
        }
    }
    paths
}

/// `resolveImageMentions`: the supplied images normalised (Zoo 3.82: well-formed base64 data
/// URLs of a supported type within the limits, de-duplicated, at most 20), then each image
/// mention read as a data URL until 20 images are reached. A mention is skipped (silently, as
/// in the original) when it does not lie strictly inside `cwd`, the access rule blocks it by
/// name or by what it really is (the read gate judges the opened file, so a link to an ignored
/// or outside file is refused), it is no regular file, or it exceeds the per-image or the
/// running total limit. Nothing is read when the model does not support images.
pub fn resolve_image_mentions(
    fs: &dyn FileSystem,
    policy: &Policy,
    resolver: &Resolver,
    text: &str,
    supplied: &[String],
    options: &ImageOptions<'_>,
) -> Vec<String> {
    let mut images = normalize_supplied_images(supplied, options);
    if images.len() >= MAX_IMAGES_PER_MESSAGE || !options.supports_images {
        return images;
    }
    let cwd = options.cwd.to_path_buf();
    let real_cwd = fs.canonicalize(&cwd).ok();
    let mut total_mb = 0.0;
    for relative in image_mention_paths(text) {
        // A message may name many images that are all skipped: stop when the request is gone.
        if images.len() >= MAX_IMAGES_PER_MESSAGE || crate::cancel::cancelled() {
            break;
        }
        let absolute = normalize_lexically(&cwd, &relative);
        if absolute == cwd || !absolute.starts_with(&cwd) {
            continue;
        }
        if policy
            .check_access(resolver, fs, Some(&cwd), &relative)
            .blocked
            .is_some()
        {
            continue;
        }
        let Some(real_cwd) = real_cwd.as_deref() else {
            continue;
        };
        let Some(mime) = absolute
            .extension()
            .and_then(|e| image_mime_type(&e.to_string_lossy()))
        else {
            continue;
        };
        let limit_bytes = (options.max_image_file_size_mb.max(0.0) * BYTES_PER_MB).floor() as u64;
        let allowed = |opened: &OpenedObject<'_>| {
            let real = opened.real_path;
            policy.allows_opened(opened) && real.starts_with(real_cwd) && real != real_cwd
        };
        let Ok(file) = open_gated(fs, &absolute, limit_bytes, true, &allowed) else {
            continue;
        };
        let size_mb = file.len as f64 / BYTES_PER_MB;
        if size_mb > options.max_image_file_size_mb
            || total_mb + size_mb > options.max_total_image_size_mb
        {
            continue;
        }
        let Ok(bytes) = file.read_all() else { continue };
        total_mb += size_mb;
        let url = format!("data:{mime};base64,{}", base64_encode(&bytes));
        if !images.contains(&url) {
            images.push(url);
        }
    }
    images.truncate(MAX_IMAGES_PER_MESSAGE);
    images
}

/// Keeps supplied images that are `data:image/<supported>;base64,<well-formed base64>` within
/// the per-image and total limits, in order, de-duplicated, at most 20.
pub fn normalize_supplied_images(supplied: &[String], options: &ImageOptions<'_>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut total_mb = 0.0;
    for image in supplied {
        if kept.len() >= MAX_IMAGES_PER_MESSAGE {
            break;
        }
        let Some(rest) = image.strip_prefix("data:") else {
            continue;
        };
        let Some((mime, data)) = rest.split_once(";base64,") else {
            continue;
        };
        if !is_supported_mime_type(&mime.to_ascii_lowercase()) {
            continue;
        }
        let Some(decoded_len) = base64_decoded_len(data) else {
            continue;
        };
        let size_mb = decoded_len as f64 / BYTES_PER_MB;
        if size_mb > options.max_image_file_size_mb
            || total_mb + size_mb > options.max_total_image_size_mb
        {
            continue;
        }
        if kept.contains(image) {
            continue;
        }
        total_mb += size_mb;
        kept.push(image.clone());
    }
    kept
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (what Node's `toString("base64")` writes).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The decoded length of well-formed standard base64 (non-empty, length a multiple of 4, at
/// most two `=` at the end), or `None`.
pub fn base64_decoded_len(data: &str) -> Option<usize> {
    let bytes = data.as_bytes();
    if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
        return None;
    }
    let padding = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if padding > 2 {
        return None;
    }
    let body = &bytes[..bytes.len() - padding];
    if !body
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
    {
        return None;
    }
    Some(bytes.len() / 4 * 3 - padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
        assert_eq!(base64_encode(&[0xff, 0xfe, 0x00, 0x01]), "//4AAQ==");
        assert_eq!(base64_decoded_len("Zg=="), Some(1));
        assert_eq!(base64_decoded_len("Zm9v"), Some(3));
        for bad in ["", "Zg=", "Z===", "Zm9v!A==", "Zm 9", "=Zm9"] {
            assert_eq!(base64_decoded_len(bad), None, "{bad}");
        }
    }

    #[test]
    fn image_paths_are_path_mentions_with_an_image_extension() {
        assert_eq!(
            image_mention_paths("see @/a.PNG and @/my\\ pic.jpg, @/b.ts @http://x/y.png @/a.PNG"),
            vec!["a.PNG".to_owned(), "my pic.jpg".to_owned()]
        );
    }
}
