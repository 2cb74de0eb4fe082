import Foundation
import Hummingbird

extension Request {
    /// Every value of the cookie `name`, in the order the `Cookie` headers give them (a browser may send two cookies
    /// of one name, set for different paths or hosts: the caller tries each).
    ///
    /// ```swift
    /// for token in request.cookieValues(named: "hb_console") { if let session = find(token) { return session } }
    /// ```
    public func cookieValues(named name: String) -> [String] {
        var values: [String] = []
        for field in headers[values: .cookie] {
            for part in field.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { values.append(String(pair[1])) }
            }
        }
        return values
    }
}
