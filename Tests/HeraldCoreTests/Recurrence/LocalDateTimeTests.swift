import Testing
import HeraldCore

@Suite("LocalDateTime parsing")
struct LocalDateTimeTests {
    @Test("Parses YYYY-MM-DDTHH:MM and YYYY-MM-DDTHH:MM:SS")
    func accepts() {
        #expect(LocalDateTime(parsing: "2027-03-14T02:30") == LocalDateTime(year: 2027, month: 3, day: 14, hour: 2, minute: 30))
        #expect(LocalDateTime(parsing: "2028-02-29T23:59:59")
            == LocalDateTime(year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 59))
        #expect(LocalDateTime(parsing: "0001-01-01T00:00:00") == LocalDateTime(year: 1, month: 1, day: 1))
    }

    @Test("Rejects offsets, Z, impossible dates and times, and garbage", arguments: [
        "2027-03-14T02:30:00Z",
        "2027-03-14T02:30Z",
        "2027-03-14T02:30:00+01:00",
        "2027-03-14T02:30-05:00",
        "2027-02-30T10:00",
        "2027-02-29T10:00",
        "2027-13-01T10:00",
        "2027-00-10T10:00",
        "2027-04-31T10:00",
        "2027-03-14T24:00",
        "2027-03-14T23:60",
        "2027-03-14T23:59:60",
        "2027-03-14 02:30",
        "2027-03-14",
        "2027-3-14T02:30",
        "+2027-03-14T02:30",
        "2027-03-14T02:30:00.5",
        "",
        "garbage",
        "abcd-ef-ghTij:kl",
    ])
    func rejects(_ text: String) {
        #expect(LocalDateTime(parsing: text) == nil)
    }

    @Test("description reads back through init(parsing:)")
    func descriptionRoundTrips() {
        let value = LocalDateTime(year: 2027, month: 1, day: 5, hour: 7, minute: 3, second: 9)
        #expect(value.description == "2027-01-05T07:03:09")
        #expect(LocalDateTime(parsing: value.description) == value)
    }
}
