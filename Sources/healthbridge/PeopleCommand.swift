import ArgumentParser

/// `healthbridge people …`: the people of a household, each kept strictly apart.
struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "The people of this household: each has data, devices, grants and an audit log of their own.",
        discussion: """
            The data directory belongs to the household's owner (the person `owner`); every other person has a data \
            directory of their own under people/<id>/. Every command acts on one person: --person ID (or \
            $HEALTHBRIDGE_PERSON), the owner by default. Nothing crosses people: a device paired for one person, or \
            an agent given one person's MCP endpoint, never sees another's data, unless that person shares types with \
            another person of the household (`people share`: read only, in their audit log). On PostgreSQL each person has a \
            schema of their own (<schema>_<id>) and a role of their own under row-level security (docs/stores.md).
            Examples:
              healthbridge people add "Alex Martin"
              healthbridge import export.zip --person alex-martin
              healthbridge serve --person alex-martin --api-port 8444 --mcp-port 8081
              healthbridge people share owner --read stepCount,sleepAnalysis --person alex-martin
            """,
        subcommands: [PeopleListCommand.self, PeopleAddCommand.self, PeopleRemoveCommand.self, PeopleShareCommand.self,
                      PeopleSharedCommand.self],
        defaultSubcommand: PeopleListCommand.self)
}
