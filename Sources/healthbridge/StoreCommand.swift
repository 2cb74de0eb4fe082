import ArgumentParser

/// `healthbridge store …`: where the health data lives, and moving it between stores.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "The health data store: copy it between SQLite and PostgreSQL.",
        discussion: """
            Every command reads and writes the store named by --store (or $HEALTHBRIDGE_STORE): a postgres:// URL, \
            or a SQLite file; the default is health.sqlite in the data directory.
            """,
        subcommands: [StoreCopyCommand.self])
}
