import HealthService

extension ExportState {
    /// Moves the shared types of an older version (kept in `export.sqlite`) into the grants of every paired device
    /// (`device:*`), where the service decides what paired clients may read. Runs once: later calls find nothing to
    /// move. The owner's grants, when already set, win.
    ///
    /// ```swift
    /// try await state.adoptSharedTypes(into: service)
    /// ```
    public func adoptSharedTypes(into service: HealthService) async throws {
        let legacy = try sharing().types
        guard !legacy.isEmpty else { return }
        if try await service.listGrants().principals.first(where: { $0.principal == Principal.allDevices.id })?.explicit != true {
            try await service.updateGrants(GrantsUpdate(principal: Principal.allDevices.id, allowRead: legacy))
        }
        try setSharedTypes([])
    }
}
