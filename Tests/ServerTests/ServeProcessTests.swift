import Digest
import Foundation
import HTTPServing
import Logging
import PostgresStorage
import SQLiteStorage
import Storage
import TestSupport
import Testing

@testable import Server

/// The `scanpick serve` process itself: logging, shutdown, configuration, key retention.
@Suite struct ServeProcessTests {
    @Test(arguments: ServerStoreKind.allCases)
    func logsOneLinePerRequestWithoutTheToken(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        _ = try await fixture.scan(fixture.tasks[0], "036000291452")
        _ = try await APIClient(fixture.server.baseURL, token: "secret-wrong-token").get("/api/batches/x")
        // The log is written in batches, off the request's path: wait for the second request's line.
        #expect(await eventually { fixture.server.log.contains(#""status":401"#) })
        let lines = fixture.server.log.split(separator: "\n").map(String.init)
        // The request's line (under load a slow_transaction line may name the route too).
        let scan = try #require(lines.first { $0.contains("/api/picking/submit-scan") && $0.contains(#""method":"#) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(scan.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "POST")
        #expect(object["status"] as? Int == 200)
        #expect(object["org"] as? String == "acme")
        #expect(object["ms"] is Double)
        #expect(lines.contains { $0.contains(#""status":401"#) })
        for token in ServerProcess.tokens.values + ["secret-wrong-token"] {
            #expect(!fixture.server.log.contains(token))
        }
        // Every line of the log is one JSON object with its time and level.
        let log = LogLines(fixture.server.log)
        #expect(log.notJSON.isEmpty, "\(log.notJSON)")
        #expect(log.withoutTimeOrLevel.isEmpty, "\(log.withoutTimeOrLevel)")
        #expect(log.lines(of: "listening").first?["level"] as? String == "notice")
    }

    /// A unit that fails to start says why at the journal's `err` (`journalctl -p warning` shows
    /// it): the fatal line is JSON like every other, with the `<3>` prefix when standard error is
    /// the journal `JOURNAL_STREAM` names (here a pipe standing in for it), and none otherwise.
    @Test func aFatalStartUpErrorIsAnErrLineInTheJournal() async throws {
        let folder = try TemporaryDirectory()
        let config = try folder.write(
            "bad.json",
            text:
                #"{"listen": "127.0.0.1:0", "organisations": {"acme": {"tokenSha256": ["\#(SHA256.hex(of: "t"))"]}}, "lsten": 1}"#
        )
        let journal = try await ProcessRunner.run(
            "/bin/sh",
            [
                "-c",
                #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" serve --config "$1""#,
                ProcessRunner.scanpick, config,
            ], in: folder.path)
        #expect(journal.status == 1)
        let tagged = LogLines(journal.standardError)
        #expect(tagged.notJSON.isEmpty, "\(journal.standardError)")
        let fatal = try #require(tagged.objects.first { $0.object["event"] as? String == "start_failed" })
        #expect(fatal.priority == 3, "\(journal.standardError)")
        #expect(fatal.object["level"] as? String == "error")
        #expect((fatal.object["message"] as? String)?.contains(#""lsten" is not a known setting"#) == true)
        #expect(journal.standardError.hasPrefix("<3>{"))

        let plain = try await ProcessRunner.scanpick(["serve", "--config", config])
        #expect(plain.status == 1)
        #expect(plain.standardError.hasPrefix(#"{"time":""#), "\(plain.standardError)")
        #expect(LogLines(plain.standardError).withoutTimeOrLevel.isEmpty)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func stopsCleanlyOnASignal(signal: Int32) async throws {
        let server = try await ServerProcess()
        #expect(try await APIClient(server.baseURL, token: nil).get("/health").status == 200)
        #expect(try await server.end(signal: signal) == 0)
        #expect(server.log.contains(#""event":"stopped""#))
    }

    @Test func aLowOpenFileLimitLowersTheConnectionLimitInsteadOfStoppingTheServer() async throws {
        let server = try await ServerProcess()
        try await server.stop()
        // A service manager or container that allows 600 open files: the server says what it does
        // about it and serves (it refused to start before, which a VM's init showed).
        let run = try await ProcessRunner.run(
            "/bin/sh",
            [
                "-c",
                "ulimit -Sn 600 && ulimit -Hn 600 && exec timeout -s TERM 3 \(ProcessRunner.scanpick) serve --config \(server.configPath) --listen 127.0.0.1:0",
            ], in: server.folder.path)
        #expect(run.standardError.contains("may open only 600 files: serving at most 344 connections"))
        #expect(run.standardError.contains(#""event":"listening""#))
    }

    @Test func httpLimitsAreReadAndCheckedFromTheConfig() async throws {
        let folder = try TemporaryDirectory()
        let organisations = #""organisations": {"acme": {"tokenSha256": ["\#(String(repeating: "a", count: 64))"]}}"#
        let good = try folder.write(
            "good.json",
            text: #"{"http": {"perAddressConnectionLimit": 8, "headerTimeoutSeconds": 3}, \#(organisations)}"#)
        let limits = try ServerConfiguration.load(path: good).http
        #expect(limits.perAddressConnectionLimit == 8)
        #expect(limits.headerTimeoutSeconds == 3)
        #expect(limits.connectionLimit == HTTPServerLimits().connectionLimit)
        for (text, key) in [
            (#""http": {"headerTimeoutSeconds": 0}"#, "http.headerTimeoutSeconds"),
            (#""http": {"perAddressLimit": 5}"#, "http.perAddressLimit"),
            (#""http": {"workerThreads": 2.5}"#, "http.workerThreads"),
        ] {
            let bad = try folder.write("bad.json", text: "{\(text), \(organisations)}")
            #expect {
                try ServerConfiguration.load(path: bad)
            } throws: { error in
                String(describing: error).contains(key)
            }
        }
    }

    @Test func refusesAnAddressInUseAndABadConfigClearly() async throws {
        let server = try await ServerProcess()
        let port = server.baseURL.port ?? 0
        let busy = try await ProcessRunner.scanpick([
            "serve", "--config", server.configPath, "--listen", "127.0.0.1:\(port)",
            "--database", server.folder.file("another.sqlite"),
        ])
        #expect(busy.status == 1)
        let refusal = LogLines(busy.standardError).messages(of: "start_failed").joined()
        #expect(refusal.contains("127.0.0.1:\(port)"))
        #expect(refusal.contains("already in use"))
        #expect(refusal.contains(#""listen""#))
        #expect(!busy.standardError.contains("port 0"))  // libmicrohttpd's own line named no real port
        #expect(LogLines(busy.standardError).lines(of: "listening").isEmpty)

        let folder = try TemporaryDirectory()
        let config = try folder.write(
            "bad.json",
            text:
                #"{"listen": "127.0.0.1:0", "organisations": {"acme": {"tokenSha256": ["\#(SHA256.hex(of: "t"))"]}}, "lsten": 1}"#
        )
        let bad = try await ProcessRunner.scanpick(["serve", "--config", config])
        #expect(bad.status == 1)
        #expect(
            LogLines(bad.standardError).messages(of: "start_failed").first?.contains(#""lsten" is not a known setting"#)
                == true)
        let badHash = try folder.write("hash.json", text: #"{"organisations": {"acme": {"tokenSha256": ["abc"]}}}"#)
        let hashRefusal = try await ProcessRunner.scanpick(["serve", "--config", badHash]).standardError
        #expect(
            LogLines(hashRefusal).messages(of: "start_failed").first?.contains("organisations.acme.tokenSha256") == true
        )
    }

    /// SQLite serves one server process: a second serve of the same file is refused at start (and
    /// the first one keeps serving).
    @Test func aSecondServeOfTheSameSQLiteFileIsRefused() async throws {
        let server = try await ServerProcess()
        let second = try await ProcessRunner.scanpick([
            "serve", "--config", server.configPath, "--listen", "127.0.0.1:0",
        ])
        #expect(second.status == 1)
        #expect(second.standardError.contains("another scanpick serve is already using the database"))
        #expect(second.standardError.contains("server.sqlite: SQLite serves one server process"))
        let health = try await APIClient(server.baseURL, token: nil).get("/health")
        #expect(health.status == 200)
        // A migration beside a running server is refused too: the server keeps the schema it started with.
        let migrate = try await ProcessRunner.scanpick(["migrate", "--config", server.configPath])
        #expect(migrate.status == 1)
        #expect(migrate.standardError.contains("stop it before migrating"), "\(migrate.standardError)")
        // Once the first has stopped, the file is free again.
        #expect(try await server.stop() == 0)
        let migrated = try await ProcessRunner.scanpick(["migrate", "--config", server.configPath])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(migrated.standardOutput.contains("schema up to date"))
        try await server.start()
        #expect(try await APIClient(server.baseURL, token: nil).get("/health").status == 200)
    }

    /// A database the service's user cannot write says whose it is, not SQLite's "readonly database".
    @Test(.enabled(if: getuid() == 0, "needs root to run serve as another user"))
    func aDatabaseThisUserCannotWriteNamesItsOwner() async throws {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let config = try folder.write(
            "server.json", text: #"{"listen": "127.0.0.1:0", "database": "s.sqlite", "organisations": {}}"#)
        chmod(config, 0o644)
        #expect(try await ProcessRunner.scanpick(["migrate", "--config", config]).status == 0)
        let refused = try await ProcessRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", ProcessRunner.scanpick, "serve", "--config", config],
            in: folder.path)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains("s.sqlite is owned by root:root, mode 0600 and this process runs as nobody"))
        #expect(!refused.standardError.contains("readonly database"))
    }

    @Test(arguments: ServerStoreKind.allCases)
    func migrateAppliesOnceAndRefusesANewerSchema(store: ServerStoreKind) async throws {
        let folder = try TemporaryDirectory()
        let database =
            switch store {
            case .sqlite: folder.file("var/s.sqlite")
            case .postgres: try await PostgresCluster.sharedDatabase()
            }
        let config = try folder.write(
            "server.json",
            text: #"{"organisations": {"acme": {"tokenSha256": ["\#(SHA256.hex(of: "t"))"]}}}"#)
        // --status and --dry-run read only: nothing applied, nothing made.
        let before = try await ProcessRunner.scanpick([
            "migrate", "--status", "--config", config, "--database", database,
        ])
        #expect(before.status == 0, "\(before.standardError)")
        #expect(before.standardOutput == (1...8).map { "pending  server-\($0)\n" }.joined())
        let dry = try await ProcessRunner.scanpick(["migrate", "--dry-run", "--config", config, "--database", database])
        #expect(dry.standardOutput == (1...8).map { "would apply server-\($0)\n" }.joined())
        if store == .sqlite { #expect(!FileManager.default.fileExists(atPath: database)) }
        let first = try await ProcessRunner.scanpick(["migrate", "--config", config, "--database", database])
        #expect(first.status == 0, "\(first.standardError)")
        let after = try await ProcessRunner.scanpick([
            "migrate", "--status", "--config", config, "--database", database,
        ])
        let afterLines = after.standardOutput.split(separator: "\n")
        #expect(afterLines.count == 8 && afterLines.allSatisfy { $0.hasPrefix("applied  server-") }, "\(after)")
        let dryAfter = try await ProcessRunner.scanpick([
            "migrate", "--dry-run", "--config", config, "--database", database,
        ])
        #expect(dryAfter.standardOutput.hasPrefix("schema up to date"))
        #expect(
            first.standardOutput
                == (1...8).map { "applied server-\($0)\n" }.joined())
        let again = try await ProcessRunner.scanpick(["migrate", "--config", config, "--database", database])
        #expect(again.standardOutput.hasPrefix("schema up to date"))

        let insert = "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('server-99', 'later')"
        switch store {
        case .sqlite: try Database(path: database).run(insert)
        case .postgres: try PostgresConnection(database).run(insert, [])
        }
        let newer = try await ProcessRunner.scanpick(["migrate", "--config", config, "--database", database])
        #expect(newer.status == 1)
        #expect(newer.standardError.contains("server-99"))
        let newerStatus = try await ProcessRunner.scanpick([
            "migrate", "--status", "--config", config, "--database", database,
        ])
        #expect(newerStatus.status == 1)
        #expect(newerStatus.standardOutput.contains("unknown  server-99 (applied by a newer scanpick"))
    }

    @Test func tokenNewPrintsATokenAndItsHash() async throws {
        let made = try await ProcessRunner.scanpick(["token", "new", "--org", "acme", "--json"])
        #expect(made.status == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(made.standardOutput.utf8)) as? [String: String])
        let token = try #require(object["token"])
        #expect(token.count >= 40)
        #expect(object["tokenSha256"] == SHA256.hex(of: token))
        let other = try await ProcessRunner.scanpick(["token", "new", "--org", "acme", "--json"])
        #expect(other.standardOutput != made.standardOutput)
        #expect(try await ProcessRunner.scanpick(["token", "new"]).status == 2)
        // The name goes into the config snippet it prints, and into log lines and metrics labels.
        let newline = try await ProcessRunner.scanpick(["token", "new", "--org", "ac\nme"])
        #expect(newline.status == 2)
        #expect(newline.standardError.contains(#"--org: the organisation name "ac\nme" must not contain control"#))
        #expect(newline.standardOutput.isEmpty)
    }

    /// A token hash under two organisations would let either act as the other (requests answered
    /// as the first one read); an organisation's name is text that log lines and labels can carry.
    @Test func aTokenSharedByTwoOrganisationsOrAnUnusableNameIsRefused() throws {
        let folder = try TemporaryDirectory()
        let (hash, own) = (SHA256.hex(of: "shared"), SHA256.hex(of: "globex's own"))
        let shared = try folder.write(
            "shared.json",
            text: #"{"organisations": {"acme": {"tokenSha256": ["\#(hash)"]}, "#
                + #""globex": {"tokenSha256": ["\#(own)", "\#(hash)"]}}}"#)
        #expect {
            try ServerConfiguration.load(path: shared)
        } throws: { error in
            let text = String(describing: error)
            return text.contains(#""organisations.globex.tokenSha256""#)
                && text.contains("organisations.acme holds too")
        }
        let repeated = try folder.write(
            "repeated.json", text: #"{"organisations": {"acme": {"tokenSha256": ["\#(hash)", "\#(hash)"]}}}"#)
        #expect(try ServerConfiguration.load(path: repeated).organisations["acme"] == [hash, hash])
        for name in ["ac\\nme", String(repeating: "o", count: 65)] {
            let named = try folder.write("named.json", text: #"{"organisations": {"\#(name)": {"tokenSha256": []}}}"#)
            #expect {
                try ServerConfiguration.load(path: named)
            } throws: { error in
                String(describing: error).contains(#""organisations" the organisation name"#)
            }
        }
    }

    @Test(arguments: ServerStoreKind.allCases)
    func storedKeysArePrunedAfterTheRetentionPeriod(store: ServerStoreKind) async throws {
        let folder = try TemporaryDirectory()
        let database: ServerDatabase =
            switch store {
            case .sqlite: .sqlite(path: folder.file("s.sqlite"))
            case .postgres: .postgres(connectionString: try await PostgresCluster.sharedDatabase())
            }
        let configuration = ServerConfiguration(
            listen: ListenAddress(host: "127.0.0.1", port: 0), database: database,
            organisations: ["acme": [SHA256.hex(of: "t")]], idempotencyRetentionDays: 7)
        let api = try ScanPickAPI(configuration: configuration, logger: .discarding)
        func post(_ path: String, _ json: String) -> HTTPResponse {
            api.handle(
                HTTPRequest(method: "POST", path: path, headers: ["authorization": "Bearer t"], body: Array(json.utf8)))
        }
        _ = post(
            "/api/orders",
            #"{"orders":[{"id":"o","carrier":"c","zone":"z","shipBy":"2026-12-09","lines":[{"id":"l","sku":"s","location":"A","barcode":"1","qty":5}]}]}"#
        )
        let batch = post("/api/batches", #"{"filters":{}}"#)
        let task = try #require(
            String(decoding: batch.body, as: UTF8.self).split(separator: "\"").first { $0.hasPrefix("task-") })
        let pick = #"{"pickTaskId":"\#(task)","qty":1,"idempotencyKey":"old","workerId":"w","at":"\#(actionTime)"}"#
        #expect(post("/api/picking/pick", pick).status == 200)
        #expect(try api.pruneIdempotencyKeys(now: Date().addingTimeInterval(6 * 86_400)) == 0)
        #expect(post("/api/picking/pick", pick).headers.contains { $0.0 == "Idempotent-Replayed" })
        #expect(try api.pruneIdempotencyKeys(now: Date().addingTimeInterval(8 * 86_400)) == 1)
        let afterPrune = post("/api/picking/pick", pick)
        #expect(afterPrune.status == 200)
        #expect(!afterPrune.headers.contains { $0.0 == "Idempotent-Replayed" })
    }
}

@Suite struct DigestTests {
    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.constantTimeEqual("abc", "abc"))
        #expect(!SHA256.constantTimeEqual("abc", "abd"))
        #expect(!SHA256.constantTimeEqual("abc", "abcd"))
    }
}
