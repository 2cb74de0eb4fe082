/// Exact decimal number parsing of raw bytes, as the scanner's attribute values use it, for other byte-level readers
/// (CSV columns of an export's electrocardiograms, GPX text).
///
/// ```swift
/// let value = "-12.25".utf8.withContiguousStorageIfAvailable { DecimalText.double(UnsafeRawBufferPointer($0)) }
/// ```
public enum DecimalText {
    /// `[+-]? digits ('.' digits)? ([eE] [+-]? digits)?` surrounded by optional whitespace, correctly rounded; nil for
    /// anything else (no `inf`, `nan` or hexadecimal).
    @inlinable
    public static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        _NumberParser.parseDouble(bytes)
    }
}
