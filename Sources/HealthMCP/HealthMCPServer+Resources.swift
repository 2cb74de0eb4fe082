import Foundation
import HealthService
import MCP

extension HealthMCPServer {
    /// Registers `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
    /// `resources/unsubscribe` (``HealthResources``) on a server. Updates of subscribed resources go out as
    /// `notifications/resources/updated` through the server's transport (on streamable HTTP, the session's GET
    /// stream). Returns the session's subscriptions.
    ///
    /// ```swift
    /// let subscriptions = await HealthMCPServer.registerResources(on: server, toolbox: toolbox)
    /// ```
    @discardableResult
    public static func registerResources(on server: Server, toolbox: HealthToolbox) async -> ResourceSubscriptions {
        let resources = HealthResources(service: toolbox.service)
        // Weak: the server holds the handlers, which hold the subscriptions, which must not hold the server.
        let subscriptions = ResourceSubscriptions(service: toolbox.service, logger: toolbox.logger) { [weak server] uri in
            guard let server else { throw MCPError.connectionClosed }
            try await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
        }
        await server.withMethodHandler(ListResources.self) { _ in
            ListResources.Result(resources: try await resources.list())
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            ListResourceTemplates.Result(templates: HealthResources.templates)
        }
        await server.withMethodHandler(ReadResource.self) { params in
            try await resources.read(params.uri)
        }
        await server.withMethodHandler(ResourceSubscribe.self) { params in
            try await subscriptions.subscribe(params.uri)
            return Empty()
        }
        await server.withMethodHandler(ResourceUnsubscribe.self) { params in
            await subscriptions.unsubscribe(params.uri)
            return Empty()
        }
        return subscriptions
    }
}
