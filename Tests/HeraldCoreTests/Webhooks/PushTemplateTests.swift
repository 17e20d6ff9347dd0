import Foundation
import HeraldCore
import Testing

/// The error a throwing call raises, or nil.
private func failure<T>(_ body: () throws -> T) -> HeraldError? {
    do {
        _ = try body()
        return nil
    } catch let error as HeraldError {
        return error
    } catch {
        return HeraldError(.badRequest, reason: .internalError, message: "\(error)")
    }
}

@Suite("Push templates")
struct PushTemplateTests {
    let order: JSONValue
    init() throws {
        order = try json(#"""
        {"event": "order.shipped", "id": "evt_123", "seq": 42, "paid": true, "price": 9.5,
         "user": {"id": "dev-1", "name": "Ada", "tokens": ["aa11", "bb22"], "unread": 3},
         "order": {"id": 1001, "items": [{"sku": "X"}], "note": null}}
        """#)
    }

    @Test("Placeholders: strings as they are, numbers and booleans as JSON text, {{ for a literal {")
    func templatePlaceholders() throws {
        let template = PushTemplate(devices: "/user/id", title: "Hi {/user/name}",
                                    body: "Order {/order/id} ({/price}, paid {/paid}) {{ok} {{/user/name}}",
                                    collapseId: "order-{/order/id}")
        let push = try #require(try template.apply(to: order))
        #expect(push.aps.alert == .content(APS.AlertContent(title: "Hi Ada", body: "Order 1001 (9.5, paid true) {ok} {/user/name}}")))
        #expect(push.collapseID == "order-1001")
        #expect(push.devices == ["dev-1"] && push.tokens.isEmpty && push.type == .alert)
        #expect(push.idempotencyKey == nil && push.data.isEmpty)
    }

    @Test("Malformed placeholder text is invalidTemplate naming the field", arguments: [
        "Hi {/user/name", "Hi {name}", "Hi {}", "Hi {/a~2}",
    ])
    func templateBadPlaceholder(title: String) {
        let error = failure { try PushTemplate(devices: "/user/id", title: title).validate() }
        #expect(error?.reason == .invalidTemplate)
        #expect(error?.message.contains("title") == true)
    }

    @Test("Tokens: a single string or an array of strings; an empty array means nobody")
    func templateTokens() throws {
        #expect(try PushTemplate(tokens: "/user/tokens", body: "x").apply(to: order)?.tokens == ["aa11", "bb22"])
        #expect(try PushTemplate(tokens: "/user/id", body: "x").apply(to: order)?.tokens == ["dev-1"])
        #expect(try PushTemplate(tokens: "/xs", body: "x").apply(to: json(#"{"xs": []}"#))?.tokens == [])
    }

    @Test("Filter match: the push is made")
    func filterMatch() throws {
        let template = PushTemplate(devices: "/user/id", body: "shipped",
                                    filter: .init(pointer: "/event", equals: .string("order.shipped")))
        #expect(try template.apply(to: order) != nil)
        // JSON equality: 42 matches 42.0, and objects compare by content.
        #expect(try PushTemplate(devices: "/user/id", body: "x", filter: .init(pointer: "/seq", equals: .number(42.0))).apply(to: order) != nil)
        #expect(try PushTemplate(devices: "/user/id", body: "x",
                                 filter: .init(pointer: "/order/items/0", equals: .object(["sku": .string("X")]))).apply(to: order) != nil)
    }

    @Test("Filter no match: nil, not an error, even when the body lacks the template's fields")
    func filterNoMatch() throws {
        let template = PushTemplate(devices: "/user/id", title: "{/missing/everywhere}",
                                    filter: .init(pointer: "/event", equals: .string("order.cancelled")))
        #expect(try template.apply(to: order) == nil)
        // A missing filter field does not match, not even `equals: null`.
        #expect(try PushTemplate(devices: "/user/id", body: "x", filter: .init(pointer: "/absent", equals: .null)).apply(to: order) == nil)
        #expect(try PushTemplate(devices: "/user/id", body: "x", filter: .init(pointer: "/order/note", equals: .null)).apply(to: order) != nil)
        // "42" is not 42.
        #expect(try PushTemplate(devices: "/user/id", body: "x", filter: .init(pointer: "/seq", equals: .string("42"))).apply(to: order) == nil)
    }

    @Test("A missing field is templateFailed and the message names its pointer", arguments: [
        PushTemplate(devices: "/user/nope", body: "x"),
        PushTemplate(tokens: "/user/nope", body: "x"),
        PushTemplate(devices: "/user/id", title: "Hi {/user/nope}"),
        PushTemplate(devices: "/user/id", body: "x", badge: .pointer("/user/nope")),
        PushTemplate(devices: "/user/id", body: "x", collapseId: "{/user/nope}"),
        PushTemplate(devices: "/user/id", body: "x", data: ["k": "/user/nope"]),
        PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/user/nope"),
    ])
    func missingFieldNamedInError(template: PushTemplate) {
        let error = failure { try template.apply(to: order) }
        #expect(error?.reason == .templateFailed && error?.kind == .invalid)
        #expect(error?.message.contains("/user/nope") == true, "\(String(describing: error))")
    }

    @Test("A field of the wrong type is templateFailed naming the pointer and the type found", arguments: [
        (PushTemplate(devices: "/seq", body: "x"), "/seq"),
        (PushTemplate(tokens: "/order/items", body: "x"), "/order/items"),
        (PushTemplate(devices: "/user/id", title: "{/user}"), "/user"),
        (PushTemplate(devices: "/user/id", title: "{/order/note}"), "/order/note"),
        (PushTemplate(devices: "/user/id", badge: .pointer("/user/name")), "/user/name"),
        (PushTemplate(devices: "/user/id", badge: .pointer("/price")), "/price"),
        (PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/paid"), "/paid"),
        (PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/user"), "/user"),
    ])
    func wrongType(template: PushTemplate, pointer: String) {
        let error = failure { try template.apply(to: order) }
        #expect(error?.reason == .templateFailed)
        #expect(error?.message.contains("\"\(pointer)\"") == true, "\(String(describing: error))")
    }

    @Test("Data copies any JSON value from the body beside aps")
    func dataCopy() throws {
        let template = PushTemplate(devices: "/user/id", body: "x",
                                    data: ["orderId": "/order/id", "items": "/order/items", "note": "/order/note", "who": "/user/name"])
        let push = try #require(try template.apply(to: order))
        #expect(push.data == ["orderId": .number(1001), "items": .array([.object(["sku": .string("X")])]),
                              "note": .null, "who": .string("Ada")])
    }

    @Test("The idempotency key comes from its pointer: a string as is, a number as JSON text")
    func idempotencyKeyPointer() throws {
        #expect(try PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/id").apply(to: order)?.idempotencyKey == "evt_123")
        #expect(try PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/seq").apply(to: order)?.idempotencyKey == "42")
        let empty = failure { try PushTemplate(devices: "/user/id", body: "x", idempotencyKey: "/k").apply(to: json(#"{"user": {"id": "d"}, "k": ""}"#)) }
        #expect(empty?.reason == .templateFailed)
    }

    @Test("Badge from a number or a pointer to a whole number; sound is templated")
    func badgeAndSound() throws {
        let fixed = try PushTemplate(devices: "/user/id", sound: "default", badge: .count(0)).apply(to: order)
        #expect(fixed?.aps.badge == 0 && fixed?.aps.sound == .named("default") && fixed?.aps.alert == nil)
        #expect(try PushTemplate(devices: "/user/id", badge: .pointer("/user/unread")).apply(to: order)?.aps.badge == 3)
        #expect(failure { try PushTemplate(devices: "/user/id", badge: .count(-1)).validate() }?.reason == .invalidTemplate)
    }

    @Test("Background template: content-available only, data allowed, and no title, body, sound or badge")
    func backgroundTemplateRules() throws {
        let template = PushTemplate(devices: "/user/id", type: .background, data: ["orderId": "/order/id"])
        let push = try #require(try template.apply(to: order))
        #expect(push.type == .background && push.aps.isBackgroundOnly && push.data == ["orderId": .number(1001)])
        for bad in [PushTemplate(devices: "/user/id", type: .background, title: "t"),
                    PushTemplate(devices: "/user/id", type: .background, body: "b"),
                    PushTemplate(devices: "/user/id", type: .background, sound: "s"),
                    PushTemplate(devices: "/user/id", type: .background, badge: .count(1))] {
            let error = failure { try bad.validate() }
            #expect(error?.reason == .invalidTemplate, "\(bad)")
            // apply re-checks, so an unvalidated template cannot slip through.
            #expect(failure { try bad.apply(to: order) }?.reason == .invalidTemplate)
        }
    }

    @Test("Exactly one of tokens or devices is targeted")
    func exactlyOneTarget() {
        #expect(failure { try PushTemplate(body: "x").validate() }?.reason == .invalidTemplate)
        #expect(failure { try PushTemplate(tokens: "/a", devices: "/b", body: "x").validate() }?.reason == .invalidTemplate)
        #expect(failure { try PushTemplate(tokens: "/a", body: "x").validate() } == nil)
    }

    @Test("Every pointer must parse at definition time, and the message names the field")
    func pointersMustParse() {
        let cases: [(PushTemplate, String)] = [
            (PushTemplate(devices: "user/id", body: "x"), "devices"),
            (PushTemplate(tokens: "/a~", body: "x"), "tokens"),
            (PushTemplate(devices: "/d", body: "x", badge: .pointer("n")), "badge"),
            (PushTemplate(devices: "/d", body: "x", data: ["k": "v"]), "data.k"),
            (PushTemplate(devices: "/d", body: "x", filter: .init(pointer: "status", equals: .null)), "filter.pointer"),
            (PushTemplate(devices: "/d", body: "x", idempotencyKey: "id"), "idempotencyKey"),
        ]
        for (template, field) in cases {
            let error = failure { try template.validate() }
            #expect(error?.reason == .invalidTemplate && error?.message.contains(field) == true, "\(String(describing: error))")
        }
    }

    @Test("Only alert, background and voip; an alert needs something to show; data cannot use aps")
    func typeAndContentRules() throws {
        #expect(failure { try PushTemplate(devices: "/d", type: .liveactivity, body: "x").validate() }?.reason == .invalidTemplate)
        #expect(failure { try PushTemplate(devices: "/d").validate() }?.reason == .invalidTemplate)
        #expect(failure { try PushTemplate(devices: "/d", type: .voip, data: ["call": "/id"]).validate() } == nil)
        #expect(failure { try PushTemplate(devices: "/d", body: "x", data: ["aps": "/id"]).validate() }?.reason == .invalidTemplate)
    }

    @Test("A template decodes from its JSON form and round-trips")
    func templateCodable() throws {
        let text = #"""
        {"tokens": "/user/tokens", "type": "alert", "title": "Hi {/user/name}", "badge": "/user/unread",
         "data": {"o": "/order/id"}, "filter": {"pointer": "/event", "equals": "order.shipped"}, "idempotencyKey": "/id"}
        """#
        let template = try JSONDecoder().decode(PushTemplate.self, from: Data(text.utf8))
        #expect(template.badge == .pointer("/user/unread") && template.filter?.equals == .string("order.shipped"))
        #expect(try JSONDecoder().decode(PushTemplate.self, from: JSONEncoder().encode(template)) == template)
        let numeric = try JSONDecoder().decode(PushTemplate.self, from: Data(#"{"devices": "/d", "badge": 2, "filter": {"pointer": "/x", "equals": null}}"#.utf8))
        #expect(numeric.badge == .count(2) && numeric.filter?.equals == .null)
        let push = try #require(try template.apply(to: order))
        #expect(push.tokens == ["aa11", "bb22"] && push.aps.badge == 3 && push.idempotencyKey == "evt_123")
    }
}
