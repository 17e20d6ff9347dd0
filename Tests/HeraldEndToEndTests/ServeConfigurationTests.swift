import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Starts `herald serve` with `arguments` and `environment`, checks it answers /healthz, and
/// stops it; returns the port it listened on.
private func serveAndProbe(_ arguments: [String], environment: [String: String], in scratch: Scratch) async throws -> Int {
    let server = try await ServerProcess.start(arguments: arguments, environment: environment, in: scratch)
    do {
        let health = try await http("GET", "\(server.baseURL)/healthz")
        #expect(health.status == 200)
        #expect(health.json.string("status") == "ok")
        await server.stop()
        return server.port
    } catch {
        await server.stop()
        throw error
    }
}

@Suite("herald serve configuration")
struct ServeConfigurationTests {
    @Test("With no flag, HERALD_LISTEN and HERALD_DATA_DIR are used")
    func environmentWhenNoFlag() async throws {
        try await withScratch { scratch in
            let port = try await serveAndProbe([], environment: ["HERALD_LISTEN": "127.0.0.1:0",
                                                                 "HERALD_DATA_DIR": scratch.dataDirectory], in: scratch)
            #expect(port != 0 && port != 8580, "the server bound the port HERALD_LISTEN asked for (any), not the default")
            #expect(FileManager.default.fileExists(atPath: scratch.file("data/herald.sqlite").path),
                    "the database is under HERALD_DATA_DIR")
        }
    }

    @Test("A --listen flag wins over HERALD_LISTEN")
    func flagBeatsEnvironment() async throws {
        try await withScratch { scratch in
            let port = try await serveAndProbe(["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory],
                                               environment: ["HERALD_LISTEN": "127.0.0.1:9"], in: scratch)
            #expect(port != 9)
        }
    }

    @Test("HERALD_LISTEN wins over the YAML file, and the file's other keys are used")
    func environmentBeatsFile() async throws {
        try await withScratch { scratch in
            let config = scratch.file("herald.yaml")
            try """
                listen: 127.0.0.1:9
                dataDir: \(scratch.dataDirectory)
                logLevel: warning
                scheduler:
                  batchWindowMs: 5
                """.write(to: config, atomically: true, encoding: .utf8)
            let port = try await serveAndProbe(["--config", config.path], environment: ["HERALD_LISTEN": "127.0.0.1:0"],
                                               in: scratch)
            #expect(port != 9)
            #expect(FileManager.default.fileExists(atPath: scratch.file("data/herald.sqlite").path),
                    "the database is under the file's dataDir")
        }
    }

    @Test("An unknown key in the YAML config makes herald serve exit non-zero, naming the key",
          arguments: [
              ("listenn: 127.0.0.1:0\n", "listenn"),
              ("scheduler:\n  batchWindowMS: 5\n", "scheduler.batchWindowMS"),
          ])
    func unknownKeyRefused(yaml: String, key: String) async throws {
        try await withScratch { scratch in
            let config = scratch.file("herald.yaml")
            try yaml.write(to: config, atomically: true, encoding: .utf8)
            let result = try await runHerald(["serve", "--config", config.path, "--listen", "127.0.0.1:0",
                                              "--data-dir", scratch.dataDirectory], in: scratch)
            #expect(result.status != 0, "\(result)")
            #expect(result.output.contains(key), "the message names \(key): \(result)")
            #expect(!result.stdout.contains("herald listening on"))
        }
    }

    @Test("A bad value in the environment makes herald serve exit non-zero, naming the key")
    func badEnvironmentValue() async throws {
        try await withScratch { scratch in
            let result = try await runHerald(["serve", "--data-dir", scratch.dataDirectory],
                                             environment: ["HERALD_LISTEN": "127.0.0.1:0",
                                                           "HERALD_SCHEDULER_BATCH_WINDOW_MS": "soon"],
                                             in: scratch)
            #expect(result.status != 0, "\(result)")
            #expect(result.output.contains("scheduler.batchWindowMs"), "\(result)")
        }
    }

    @Test("HERALD_LOG_FORMAT=json: every line herald serve logs is one JSON object with time, level, label and message")
    func jsonLogs() async throws {
        try await withScratch { scratch in
            let server = try await ServerProcess.start(
                arguments: ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory],
                environment: ["HERALD_LOG_FORMAT": "json", "HERALD_LOG_LEVEL": "debug"], in: scratch)
            _ = try? await http("PUT", "\(server.baseURL)/v1/apps/com.example.alarm", json: [:])
            server.child.signal(SIGTERM)
            if await server.child.waitForExit(timeout: .seconds(10)) == nil { await server.stop() }
            let lines = server.child.stderr.split(separator: "\n").filter { !$0.isEmpty }
            #expect(!lines.isEmpty, "herald serve logged nothing")
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["time"] is String && object?["level"] is String && object?["label"] is String
                        && object?["message"] is String, "not a JSON log line: \(line)")
            }
        }
    }

    @Test("herald serve stops cleanly on SIGTERM, and what it stored is there at the next start")
    func gracefulStop() async throws {
        try await withScratch { scratch in
            let arguments = ["--listen", "127.0.0.1:0", "--data-dir", scratch.dataDirectory]
            let server = try await ServerProcess.start(arguments: arguments, in: scratch)
            do {
                #expect(try await http("PUT", "\(server.baseURL)/v1/apps/com.example.alarm", json: [:]).status == 201)
            } catch {
                await server.stop()
                throw error
            }
            server.child.signal(SIGTERM)
            let status = await server.child.waitForExit(timeout: .seconds(10))
            if status == nil { await server.stop() }
            #expect(status == 0, "exit status after SIGTERM: \(String(describing: status))\n\(server.child.stderr)")

            let again = try await ServerProcess.start(arguments: arguments, in: scratch)
            let app = try? await http("GET", "\(again.baseURL)/v1/apps/com.example.alarm")
            await again.stop()
            #expect(app?.status == 200)
        }
    }
}
