// Linux stand-in for Combine's `@Published`: stores the value; no publisher (nothing subscribes on Linux).

/// A property a UI would observe; here it simply holds its value.
///
/// ```swift
/// final class Model: ObservableObject { @Published var lastSyncDate: Date? }
/// ```
@propertyWrapper
struct Published<Value> {
    var wrappedValue: Value

    init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }
}
