import Capture
import Foundation
import Queue
import Scanning

/// Whether scanning is on, and what the sources read with: the camera, recorded frames and handheld
/// scanners open while the config has scanning on, and each frame reads the settings in force.
extension StationRuntime {
    /// Whether the reader `name` keeps reading: not once its service stops, nor, for a source that
    /// scanning switched off closes, once it is off.
    func keepsReading(_ name: String, closedWhenScanningStops: Bool) -> Bool {
        state.withLock { !$0.stoppedSources.contains(name) && ($0.scanningOn || !closedWhenScanningStops) }
    }

    var isScanningOn: Bool { state.withLock { $0.scanningOn } }

    /// Whether the config has scanning on for this station: for `org` when the run was started for
    /// one (`--org`), else for any of its organisations (a scan counts only for an open batch whose
    /// organisation has it on: ``ScanLoop``).
    static func scanningWanted(_ configuration: StationConfiguration, org: String?) -> Bool {
        if let org { return configuration.organisations[org]?.scanningEnabled == true }
        return configuration.organisations.values.contains { $0.scanningEnabled }
    }

    static func scanningOff(_ configuration: StationConfiguration, org requested: String?) -> String {
        let only = configuration.organisations.count == 1 ? configuration.organisations.keys.first : nil
        guard let org = requested ?? only else {
            return "scanning is off for every organisation (organisations.*.scanning.enabled)"
        }
        return "scanning is off for organisation \(org) (organisations.\(org).scanning.enabled is false)"
    }

    /// Opens the camera, recorded frames and handheld scanners or closes them, as `configuration`
    /// says (at start and on every reload: within a frame or a quarter of a second).
    func applyScanning(_ configuration: StationConfiguration) {
        let change = state.withLock { state -> (on: Bool, org: String?, closers: [@Sendable () -> Void])? in
            let on = Self.scanningWanted(configuration, org: state.requestedOrg)
            guard state.scanningOn != on else { return nil }
            state.scanningOn = on
            var closers: [@Sendable () -> Void] = []
            if !on {
                for name in state.closedWhenScanningStops {
                    if let close = state.openSources.removeValue(forKey: name) { closers.append(close) }
                }
                state.closedWhenScanningStops = []
                // What the closed sources said (found, lost) no longer holds; each says again when reopened.
                state.sourceStates = state.sourceStates.filter { $0.key == "wedge" }
            }
            return (on, state.requestedOrg, closers)
        }
        guard let change else { return }
        let on = change.on
        scanning.set(on)
        for close in change.closers { close() }
        if on {
            log("scanning_on", "scanning is on: the camera and handheld scanners are opened")
        } else {
            metrics.setCamera(.off)
            attention.set("camera", nil)
            log(
                "scanning_off",
                "\(Self.scanningOff(configuration, org: change.org)): the camera and handheld scanners are closed")
        }
        showSources()
    }

    /// The reader's symbologies and the debounce for the next frame: the symbologies of the
    /// organisation scans are for (`--org`'s, else the open batch's, else those of every organisation
    /// with scanning on).
    func scanSettings() -> ScanLoop.Settings {
        let configuration = station.configuration
        let org = state.withLock { $0.requestedOrg } ?? openBatchOrg()
        let symbologies: Set<Symbology>
        if let org, let organisation = configuration.organisations[org] {
            symbologies = organisation.symbologies
        } else {
            let on = configuration.organisations.values.filter(\.scanningEnabled)
            symbologies = on.isEmpty ? Symbology.defaults : on.reduce(into: []) { $0.formUnion($1.symbologies) }
        }
        var reader = ReaderOptions.camera(symbologies: symbologies)
        reader.scanLineSpacing = configuration.camera.scanLineSpacing
        return ScanLoop.Settings(reader: reader, debounce: configuration.debounce)
    }

    /// The open batch's organisation, read from the cache at most once a second (a frame asks).
    func openBatchOrg() -> String? {
        let now = ContinuousClock.now
        if let known = state.withLock({ $0.openBatchOrg }), now - known.readAt < .seconds(1) { return known.org }
        let org: String?
        do {
            org = try station.cache.openBatch()?.org
        } catch {
            return state.withLock { $0.openBatchOrg?.org }  // read again with the next frame
        }
        state.withLock { $0.openBatchOrg = (org, now) }
        return org
    }

    /// Shows what one source is doing on the page, next to the others'.
    func show(_ source: String, _ text: String) {
        state.withLock { $0.sourceStates[source] = text }
        showSources()
    }

    /// Shows on the page what the sources are doing ("scanning off" while it is).
    func showSources() {
        let (page, summary) = state.withLock { state in
            let states = state.sourceStates.sorted { $0.key < $1.key }.map(\.value).joined(separator: " · ")
            return (state.parts?.page, state.scanningOn ? states : "scanning off")
        }
        page?.show(scanner: summary)
    }

    func camera(_ device: String, _ state: V4L2Camera.CameraState) {
        switch state {
        case .capturing(let format):
            metrics.setCamera(.ok)
            output("camera \(device): \(format)")
            show("camera", "camera: \(format)")
            attention.set("camera", nil)
        case .unavailable(let reason):
            metrics.setCamera(.missing)
            show("camera", "camera: not found")
            attention.set(
                "camera",
                Attention(code: "camera_not_found", message: "camera: \(reason); looking for it again with backoff"))
        }
    }
}
