//! Byte-level scanning shared by every text reader: a cursor over the whole
//! file that parses unsigned integers and decimal numbers by hand (no
//! `str::parse`, no per-line `String`) and turns a byte position into a
//! 1-based line number only when an error is reported.

use std::path::Path;

use crate::error::GraphError;

/// A position-tracking reader over the bytes of one text file.
///
/// Every reader works line by line with it: skip blanks, parse fields,
/// [`Cursor::end_line`]. Errors are built with [`Cursor::error`], which counts
/// the newlines before the offending byte (cold path only).
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
    progress: Option<&'a (dyn Fn(u64, u64) + Send + Sync)>,
    release: Option<&'a (dyn Fn(usize) + Sync)>,
    next_report: usize,
}

/// Bytes between two calls of the progress callback.
const PROGRESS_STEP: usize = 1 << 24;

/// Whether `b` separates fields on a line (space, tab or a carriage return
/// from a Windows line ending).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`, the content of `path`.
    pub(crate) fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0, path, progress: None, release: None, next_report: PROGRESS_STEP }
    }

    /// Reports `(bytes done, bytes total)` to `opts.progress` while scanning,
    /// and tells `opts.release` which prefix of the buffer has been parsed
    /// (so that a mapped file's pages can be dropped from memory).
    pub(crate) fn with_progress(mut self, opts: &super::ReadOptions<'a>) -> Self {
        self.progress = opts.progress;
        self.release = opts.release;
        self
    }

    /// The whole buffer.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Current byte offset.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Whether the whole buffer has been consumed.
    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The byte at the cursor, if any.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Advances by one byte.
    #[inline]
    pub(crate) fn bump(&mut self) {
        self.pos += 1;
    }

    /// Calls the progress callback when another step of bytes has been read.
    #[inline]
    pub(crate) fn report_progress(&mut self) {
        if self.pos >= self.next_report {
            self.report_now();
        }
    }

    #[cold]
    fn report_now(&mut self) {
        if let Some(p) = self.progress {
            p(self.pos as u64, self.bytes.len() as u64);
        }
        if let Some(r) = self.release {
            r(self.pos);
        }
        self.next_report = self.pos + PROGRESS_STEP;
    }

    /// Number of lines of the whole buffer (an upper bound on data lines,
    /// used to reserve edge arrays exactly), releasing the counted prefix as
    /// it goes so that counting does not make the whole file resident.
    pub(crate) fn count_lines(&self) -> usize {
        let mut lines = 1;
        for (k, chunk) in self.bytes.chunks(PROGRESS_STEP).enumerate() {
            lines += memchr::memchr_iter(b'\n', chunk).count();
            if let Some(r) = self.release {
                r((k + 1) * PROGRESS_STEP);
            }
        }
        lines
    }

    /// Reports completion to the progress callback.
    pub(crate) fn report_done(&self) {
        if let Some(p) = self.progress {
            p(self.bytes.len() as u64, self.bytes.len() as u64);
        }
    }

    /// 1-based line number of byte `pos`.
    #[cold]
    pub(crate) fn line_of(&self, pos: usize) -> u64 {
        let pos = pos.min(self.bytes.len());
        1 + memchr::memchr_iter(b'\n', &self.bytes[..pos]).count() as u64
    }

    /// A parse error at byte `pos` (reported by its line).
    #[cold]
    pub(crate) fn error_at(&self, pos: usize, msg: impl Into<String>) -> GraphError {
        GraphError::parse(self.path, self.line_of(pos), msg)
    }

    /// A parse error at the cursor.
    #[cold]
    pub(crate) fn error(&self, msg: impl Into<String>) -> GraphError {
        self.error_at(self.pos, msg)
    }

    /// Skips spaces, tabs and carriage returns.
    #[inline]
    pub(crate) fn skip_blanks(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !is_blank(b) {
                break;
            }
            self.pos += 1;
        }
    }

    /// Skips blanks and at most one comma (for comma-separated lists).
    #[inline]
    pub(crate) fn skip_separator(&mut self, allow_comma: bool) {
        self.skip_blanks();
        if allow_comma && self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_blanks();
        }
    }

    /// Whether the cursor is at the end of a line (a newline or the end of
    /// the buffer); does not skip blanks.
    #[inline]
    pub(crate) fn at_eol(&self) -> bool {
        match self.bytes.get(self.pos) {
            None => true,
            Some(&b) => b == b'\n',
        }
    }

    /// Skips trailing blanks and the newline; errors if anything else is
    /// left on the line ("trailing garbage").
    #[inline]
    pub(crate) fn end_line(&mut self, what: &str) -> Result<(), GraphError> {
        self.skip_blanks();
        match self.bytes.get(self.pos) {
            None => Ok(()),
            Some(b'\n') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => {
                Err(self.error(format!("unexpected '{}' after {what}", printable(self.token_at(self.pos)))))
            }
        }
    }

    /// Moves past the next newline (or to the end), ignoring the content.
    #[inline]
    pub(crate) fn skip_line(&mut self) {
        match memchr::memchr(b'\n', &self.bytes[self.pos..]) {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.bytes.len(),
        }
    }

    /// The rest of the current line (without the newline), advancing past it.
    pub(crate) fn take_line(&mut self) -> &'a [u8] {
        let start = self.pos;
        let end = memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
        self.pos = (end + 1).min(self.bytes.len());
        &self.bytes[start..end]
    }

    /// The field starting at `pos`: bytes up to a blank, comma or newline.
    pub(crate) fn token_at(&self, pos: usize) -> &'a [u8] {
        let rest = &self.bytes[pos.min(self.bytes.len())..];
        let len = rest.iter().position(|&b| is_blank(b) || b == b'\n' || b == b',').unwrap_or(rest.len());
        &rest[..len.clamp(1.min(rest.len()), 40.min(rest.len()))]
    }

    /// Parses an unsigned decimal integer field (`what` names it in errors).
    /// The field must end at a blank, comma, newline or the end of the file.
    #[inline]
    pub(crate) fn uint(&mut self, what: &str) -> Result<u64, GraphError> {
        let start = self.pos;
        let bytes = self.bytes;
        let mut i = start;
        let mut value: u64 = 0;
        while let Some(&b) = bytes.get(i) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            value = value.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        let digits = i - start;
        let delimited = match bytes.get(i) {
            None => true,
            Some(&b) => is_blank(b) || b == b'\n' || b == b',',
        };
        if digits == 0 || !delimited || digits > 19 {
            return self.uint_slow(start, i, what);
        }
        self.pos = i;
        Ok(value)
    }

    /// The careful path of [`Cursor::uint`]: long numbers (checked for
    /// overflow) and every malformed field (described precisely).
    #[cold]
    fn uint_slow(&mut self, start: usize, digits_end: usize, what: &str) -> Result<u64, GraphError> {
        let digits = &self.bytes[start..digits_end];
        let delimited = match self.bytes.get(digits_end) {
            None => true,
            Some(&b) => is_blank(b) || b == b'\n' || b == b',',
        };
        if !digits.is_empty() && delimited {
            let mut value: u64 = 0;
            for &b in digits {
                value = match value.checked_mul(10).and_then(|v| v.checked_add((b - b'0') as u64)) {
                    Some(v) => v,
                    None => {
                        return Err(self.error_at(
                            start,
                            format!("{what} {} is too large", printable(self.token_at(start))),
                        ))
                    }
                };
            }
            self.pos = digits_end;
            return Ok(value);
        }
        Err(self.error_at(start, describe_bad_uint(self.token_at(start), what)))
    }

    /// Parses an unsigned integer that must fit in `u32`.
    #[inline]
    pub(crate) fn uint32(&mut self, what: &str) -> Result<u32, GraphError> {
        let start = self.pos;
        let v = self.uint(what)?;
        u32::try_from(v).map_err(|_| self.error_at(start, format!("{what} {v} exceeds the u32 range")))
    }

    /// Parses a decimal number (optionally signed, with fraction and
    /// exponent) as `f64`; rejects `nan`, `inf` and anything else that is not
    /// plain decimal notation.
    pub(crate) fn float(&mut self, what: &str) -> Result<f64, GraphError> {
        let start = self.pos;
        let token = self.token_at(start);
        let end = start + decimal_len(&self.bytes[start..]);
        let delimited = match self.bytes.get(end) {
            None => true,
            Some(&b) => is_blank(b) || b == b'\n' || b == b',',
        };
        if end == start || !delimited {
            let msg = if token.is_empty() || token == b"\n" {
                format!("missing {what}")
            } else {
                format!("{what} '{}' is not a number", printable(token))
            };
            return Err(self.error_at(start, msg));
        }
        // The bytes are ASCII digits, signs, '.', 'e' and 'E' (checked by
        // `decimal_len`), hence valid UTF-8 that `f64::from_str` accepts.
        let text =
            std::str::from_utf8(&self.bytes[start..end]).map_err(|_| self.error_at(start, "bad utf-8"))?;
        let v: f64 =
            text.parse().map_err(|_| self.error_at(start, format!("{what} '{text}' is not a number")))?;
        if !v.is_finite() {
            return Err(self.error_at(start, format!("{what} '{text}' is out of range")));
        }
        self.pos = end;
        Ok(v)
    }

    /// Parses a weight field: a non-negative integer that fits `u32`. When
    /// `keep` is false the weights will be replaced, so any decimal number is
    /// accepted (and 0 is returned).
    #[inline]
    pub(crate) fn weight(&mut self, keep: bool) -> Result<u32, GraphError> {
        if keep {
            self.uint32("weight")
        } else {
            self.float("weight").map(|_| 0)
        }
    }

    /// Parses a real weight: a decimal number that is finite and `>= 0`
    /// (`-0` is read as 0). `nan`, `inf` and numbers too large for `f64`
    /// are named as such: "weight X is not a number / infinite / negative".
    pub(crate) fn real_weight(&mut self) -> Result<f64, GraphError> {
        let start = self.pos;
        let token = self.token_at(start);
        let lower = token.to_ascii_lowercase();
        let unsigned = lower.strip_prefix(b"-").or_else(|| lower.strip_prefix(b"+")).unwrap_or(&lower);
        let special = match unsigned {
            b"nan" => Some("not a number"),
            b"inf" | b"infinity" => Some("infinite"),
            _ => None,
        };
        if let Some(why) = special {
            return Err(self.error_at(start, format!("weight {} is {why}", printable(token))));
        }
        let v = match self.float("weight") {
            Ok(v) => v,
            Err(e) if e.to_string().ends_with("is out of range") => {
                return Err(self.error_at(start, format!("weight {} is infinite", printable(token))));
            }
            Err(e) => return Err(e),
        };
        if v < 0.0 {
            return Err(self.error_at(start, format!("weight {} is negative", printable(token))));
        }
        Ok(v + 0.0)
    }

    /// Whether the bytes at the cursor start with `prefix`.
    pub(crate) fn starts_with(&self, prefix: &[u8]) -> bool {
        self.bytes[self.pos.min(self.bytes.len())..].starts_with(prefix)
    }
}

/// Length of the longest prefix of `s` in decimal notation
/// `[+-]?digits[.digits]?([eE][+-]?digits)?` (digits on at least one side of
/// the point); 0 when there is none.
pub(crate) fn decimal_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut mantissa_digits = i - int_start;
    if s.get(i) == Some(&b'.') {
        let frac_start = i + 1;
        let mut j = frac_start;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        mantissa_digits += j - frac_start;
        if mantissa_digits > 0 {
            i = j;
        }
    }
    if mantissa_digits == 0 {
        return 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_start = j;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

/// Explains why `token` is not an unsigned integer.
fn describe_bad_uint(token: &[u8], what: &str) -> String {
    let shown = printable(token);
    if token.is_empty() || token == b"\n" {
        return format!("missing {what}");
    }
    let number_len = decimal_len(token);
    if token.first() == Some(&b'-') && number_len > 1 {
        format!("negative {what} {shown}")
    } else if number_len == token.len() && token.iter().any(|&b| matches!(b, b'.' | b'e' | b'E')) {
        format!("non-integer {what} {shown}")
    } else {
        format!("{what} '{shown}' is not an unsigned integer")
    }
}

/// A short printable rendering of some bytes for error messages.
pub(crate) fn printable(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes.iter().take(40) {
        match b {
            b'\n' => s.push_str("end of line"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(s: &str) -> Cursor<'_> {
        Cursor::new(Path::new("t.txt"), s.as_bytes())
    }

    #[test]
    fn parses_integers_and_rejects_bad_fields() {
        let mut c = cur("12 18446744073709551615\t7,8");
        assert_eq!(c.uint("a").unwrap(), 12);
        c.skip_blanks();
        assert_eq!(c.uint("a").unwrap(), u64::MAX);
        c.skip_blanks();
        assert_eq!(c.uint("a").unwrap(), 7);
        c.skip_separator(true);
        assert_eq!(c.uint("a").unwrap(), 8);
        assert!(c.at_end());
        for (text, msg) in [
            ("18446744073709551616", "too large"),
            ("-3", "negative"),
            ("3.5", "non-integer"),
            ("1e3", "non-integer"),
            ("x1", "not an unsigned integer"),
            ("+5", "not an unsigned integer"),
            ("12x", "not an unsigned integer"),
            ("", "missing"),
        ] {
            let e = cur(text).uint("id").unwrap_err().to_string();
            assert!(e.contains(msg), "{text:?}: {e}");
            assert!(e.starts_with("t.txt:1: "), "{e}");
        }
        let e = cur("4294967296").uint32("weight").unwrap_err().to_string();
        assert!(e.contains("exceeds the u32 range"), "{e}");
    }

    #[test]
    fn parses_decimals_strictly() {
        for (text, v) in
            [("1.5", 1.5), ("-2", -2.0), ("3e2", 300.0), (".5", 0.5), ("7.", 7.0), ("+1E-1", 0.1)]
        {
            assert_eq!(cur(text).float("x").unwrap(), v, "{text}");
        }
        for text in ["nan", "inf", "-", ".", "1.2.3", "e5", "1e999"] {
            assert!(cur(text).float("x").is_err(), "{text}");
        }
    }

    #[test]
    fn reports_lines_lazily() {
        let mut c = cur("1 2\n3 4\n5 x\n");
        for _ in 0..2 {
            c.uint("a").unwrap();
            c.skip_blanks();
            c.uint("b").unwrap();
            c.end_line("b").unwrap();
        }
        c.uint("a").unwrap();
        c.skip_blanks();
        let e = c.uint("b").unwrap_err().to_string();
        assert_eq!(e, "t.txt:3: b 'x' is not an unsigned integer");
        let mut c = cur("1 2 junk\n");
        c.uint("a").unwrap();
        c.skip_blanks();
        c.uint("b").unwrap();
        assert!(c.end_line("target").unwrap_err().to_string().contains("unexpected 'junk' after target"));
    }
}
