import ArgumentParser

/// `herald`: the server and the client commands that talk to it.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "A notification scheduling server: local notifications per device, fired on time.",
        subcommands: [
            ServeCommand.self,
            AppCommand.self, DeviceCommand.self, ActivityCommand.self, ChannelCommand.self,
            ScheduleCommand.self, ListCommand.self, ShowCommand.self, CancelCommand.self,
            PresentCommand.self, DeliveriesCommand.self,
            PushCommand.self, StateCommand.self, EventCommand.self, WakeCommand.self, HookCommand.self,
            SandboxCommand.self, StatusCommand.self, DoctorCommand.self, BackupCommand.self,
        ])
}
