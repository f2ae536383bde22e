import Foundation
import Queue
import Station
import TestSupport
import Testing
import Wire

/// `config check` fails where start-up would (and `ExecStartPre=` runs it): a database folder the
/// service's user cannot write, a database outside the packaged unit's `ReadWritePaths=`, a listen
/// address in use, an open batch of an organisation the station's file no longer has; and it warns
/// on an organisation with no token.
@Suite struct StartupProblemsTests {
    static let hash = String(repeating: "ab", count: 32)
    static let asMe = ["--as-user", getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"]

    static func serverConfig(_ folder: TemporaryDirectory, database: String, listen: String = "127.0.0.1:0") throws
        -> String
    {
        let server = try folder.write(
            "server.json",
            text:
                #"{"listen": "\#(listen)", "database": "\#(database)", "organisations": {"acme": {"tokenSha256": ["\#(hash)"]}, "globex": {"tokenSha256": []}}}"#
        )
        chmod(server, 0o644)
        return server
    }

    @Test(.enabled(if: getuid() == 0, "needs root to check as another user"))
    func aDatabaseFolderTheServicesUserCannotWriteFails() async throws {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let data = folder.file("data")
        #expect(mkdir(data, 0o755) == 0)  // root's
        let server = try Self.serverConfig(folder, database: "data/s.sqlite")
        let refused = try await ProcessRunner.scanpick(["config", "check", "-c", server, "--as-user", "nobody"])
        let database = URL(fileURLWithPath: data).standardizedFileURL.path + "/s.sqlite"
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("valid for root, but not for nobody"), "\(refused.standardError)")
        #expect(
            refused.standardError.contains("cannot write the database \(database)"), "\(refused.standardError)")
        #expect(chown(data, 65534, 65534) == 0)
        let fixed = try await ProcessRunner.scanpick(["config", "check", "-c", server, "--as-user", "nobody"])
        #expect(fixed.status == 0, "\(fixed.standardError)")
        // An organisation without a token is legal, and a warning.
        #expect(fixed.standardError.contains("warning: organisations.globex has no tokenSha256"))
        #expect(fixed.standardError.contains("scanpick token new --org globex"))
    }

    /// Installed (the binary in the package's layout, the unit beside it), a database outside the
    /// unit's `ReadWritePaths=` fails, until a drop-in adds its folder.
    @Test func aDatabaseOutsideTheUnitsWritableFoldersFailsWhenInstalled() async throws {
        let root = try TemporaryDirectory()
        let manager = FileManager.default
        for folder in ["usr/lib/scanpick", "lib/systemd/system", "etc/systemd/system/scanpick-serve.service.d"] {
            try manager.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
        }
        let installed = root.file("usr/lib/scanpick/scanpick")
        do {
            try manager.linkItem(atPath: ProcessRunner.scanpick, toPath: installed)
        } catch {
            try manager.copyItem(atPath: ProcessRunner.scanpick, toPath: installed)
        }
        try manager.copyItem(
            atPath: Repository.root + "/packaging/systemd/scanpick-serve.service",
            toPath: root.file("lib/systemd/system/scanpick-serve.service"))
        let data = try TemporaryDirectory()
        let server = try Self.serverConfig(data, database: data.file("s.sqlite"))
        let check = ["config", "check", "-c", server] + Self.asMe
        let refused = try await ProcessRunner.run(installed, check, in: data.path)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "the database \(data.file("s.sqlite")) is outside /var/lib/scanpick, the only folders the packaged scanpick-serve service may write"
            ), "\(refused.standardError)")
        let folder = URL(fileURLWithPath: data.path).standardizedFileURL.path
        #expect(refused.standardError.contains("systemctl edit scanpick-serve ([Service] ReadWritePaths=\(folder))"))
        // The checkout's build runs under no unit: the same file passes.
        #expect(try await ProcessRunner.scanpick(check).status == 0)
        _ = try root.write(
            "etc/systemd/system/scanpick-serve.service.d/data.conf", text: "[Service]\nReadWritePaths=\(data.path)\n")
        let allowed = try await ProcessRunner.run(installed, check, in: data.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// A port something listens on fails under systemd (`ExecStartPre=`: the service has stopped,
    /// so it is another program's); run by hand it is a warning, since the running service holds it.
    @Test func aListenAddressInUseFailsUnderSystemdAndWarnsByHand() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        #expect(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let folder = try TemporaryDirectory()
        let server = try Self.serverConfig(folder, database: "s.sqlite", listen: "127.0.0.1:\(port)")
        let byHand = try await ProcessRunner.scanpick(["config", "check", "-c", server] + Self.asMe)
        #expect(byHand.status == 0, "\(byHand.standardError)")
        #expect(byHand.standardError.contains("warning: listen 127.0.0.1:\(port) is in use by another program"))
        let underSystemd = try await ProcessRunner.run(
            "/usr/bin/env",
            ["INVOCATION_ID=0123", ProcessRunner.scanpick, "config", "check", "-c", server] + Self.asMe,
            in: folder.path)
        #expect(underSystemd.status == 1)
        #expect(
            underSystemd.standardError.contains("listen 127.0.0.1:\(port) is in use by another program (ss -ltnp"),
            "\(underSystemd.standardError)")
    }

    /// An organisation renamed or removed while the station's queue has one of its batches open.
    @Test func anOpenBatchOfAnOrganisationTheFileLacksFails() async throws {
        let folder = try TemporaryDirectory()
        let database = folder.file("station.sqlite")
        let queue = try ActionQueue(path: database, extraMigrations: PickListCache.migrations)
        let task = PickTask(
            id: "t1", batchId: "b7", orderId: "o1", lineId: "l1", sku: "SKU-1", location: "A1",
            barcode: "9501101530003",
            qtyRequired: 1, qtyPicked: 0, qtyLocked: 0)
        try PickListCache(queue: queue).store(Batch(id: "b7", tasks: [task]), org: "acme")
        _ = try folder.writePrivate("globex.token", bytes: Array("a-real-token-0123456789\n".utf8))
        func station(_ org: String) throws -> String {
            try folder.writePrivate(
                "station.json",
                bytes: Array(
                    #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "database": "station.sqlite", "page": {"listen": "127.0.0.1:0"}, "organisations": {"\#(org)": {"tokenFile": "globex.token"}}}"#
                        .utf8))
        }
        let refused = try await ProcessRunner.scanpick(["config", "check", "-c", try station("globex")] + Self.asMe)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "has batch b7 of organisation acme open, but \(folder.file("station.json")) has no organisations.acme: put it back"
            ), "\(refused.standardError)")
        let kept = try await ProcessRunner.scanpick(["config", "check", "-c", try station("acme")] + Self.asMe)
        #expect(kept.status == 0, "\(kept.standardError)")
    }
}
