import HeraldCore
import Testing

@Suite("Device facts reported as events")
struct DeviceFactsTests {
    let device = Device(appID: "app", id: "d1", timeZone: "Europe/Paris")

    @Test("A reported time zone or locale becomes the device's own; the last one reported wins")
    func reportedZoneAndLocale() {
        let moved = device.withFacts(reportedIn: [
            SystemEvent(kind: "timeZone", value: .string("Asia/Tokyo")),
            SystemEvent(kind: "locale", value: .string("ja_JP")),
            SystemEvent(kind: "timeZone", value: .string("America/New_York")),
        ])
        #expect(moved.timeZone == "America/New_York")
        #expect(moved.locale == "ja_JP")
    }

    @Test("Other kinds, and values that are not text, leave the device as it was")
    func otherEventsChangeNothing() {
        let same = device.withFacts(reportedIn: [
            SystemEvent(kind: "batteryLevel", value: .number(0.5)),
            SystemEvent(kind: "timeZone", value: .number(3)),
        ])
        #expect(same == device)
    }
}
