//! The one place where byte offsets become LSP positions (UTF-16 code units).

use tower_lsp_server::ls_types::{Position, Range};

/// Line starts of a text, for converting byte columns to UTF-16 columns.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// LSP position of (0-based line, byte column); columns past the line end are clamped.
    pub fn position(&self, line: u32, byte_column: u32) -> Position {
        let Some(&start) = self.starts.get(line as usize) else {
            return Position::new(line, 0);
        };
        let end = self
            .starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.text.len());
        let mut column_end = (start + byte_column as usize).min(end);
        while !self.text.is_char_boundary(column_end) {
            column_end -= 1;
        }
        let character: usize = self.text[start..column_end]
            .chars()
            .map(char::len_utf16)
            .sum();
        Position::new(line, character as u32)
    }

    /// LSP range of a fold span.
    pub fn range(&self, span: &roo_context_fold::Span) -> Range {
        Range::new(
            self.position(span.start.line, span.start.column),
            self.position(span.end.line, span.end.column),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_columns_become_utf16_columns() {
        let index = LineIndex::new("a\nx😀é = 1\n");
        assert_eq!(index.position(1, 0), Position::new(1, 0));
        assert_eq!(index.position(1, 1), Position::new(1, 1));
        assert_eq!(
            index.position(1, 5),
            Position::new(1, 3),
            "the emoji is 4 bytes, 2 units"
        );
        assert_eq!(
            index.position(1, 7),
            Position::new(1, 4),
            "é is 2 bytes, 1 unit"
        );
        assert_eq!(
            index.position(1, 99),
            Position::new(1, 9),
            "clamped to the line end"
        );
        assert_eq!(index.position(7, 3), Position::new(7, 0));
    }
}
