extension Optional {
    /// A non-optional member of the wrapped value, as an optional slice sees it: `nil` while
    /// `self` is `nil`; setting `nil`, or setting while `self` is `nil`, changes nothing.
    ///
    /// A subscript rather than `self?[keyPath:]` so a slice can yield it `inout` from inside the
    /// state's in-place accessor, keeping a compound assignment one atomic step.
    subscript<Member>(sliceMember keyPath: WritableKeyPath<Wrapped, Member>) -> Member? {
        get { self?[keyPath: keyPath] }
        set {
            guard let newValue else { return }
            self?[keyPath: keyPath] = newValue
        }
    }

    /// An optional member of the wrapped value: `nil` while `self` or the member is `nil`;
    /// setting it while `self` is `nil` changes nothing.
    subscript<Member>(sliceMember keyPath: WritableKeyPath<Wrapped, Member?>) -> Member? {
        get { self?[keyPath: keyPath] ?? nil }
        set { self?[keyPath: keyPath] = newValue }
    }

    /// The member an ``OptionalSlice`` wrapper names, read and written with the rules above.
    subscript<Member>(sliceMember member: OptionalMember<Wrapped, Member>) -> Member? {
        get { member.read(from: self) }
        set { member.write(newValue, into: &self) }
    }
}
