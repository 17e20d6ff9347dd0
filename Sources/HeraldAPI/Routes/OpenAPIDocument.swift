/// `GET /openapi.yaml`: the API described for clients and tools (OpenAPI 3.1).
///
/// Kept as text in the binary so the server serves it wherever it is installed.
enum OpenAPIDocument {
    static let yaml = #"""
openapi: 3.1.0
info:
  title: Herald
  version: "1.0"
  description: >
    Notification scheduling server: local notifications per device fired on time, APNs pushes,
    and coalesced system events. Every error is {"error": {"reason", "message"}}; a refused
    request changes nothing stored. With API keys configured, send Authorization: Bearer <key>.
servers:
  - url: http://127.0.0.1:8580
security:
  - apiKey: []
components:
  securitySchemes:
    apiKey: {type: http, scheme: bearer}
  parameters:
    app: {name: app, in: path, required: true, schema: {type: string}}
    device: {name: device, in: path, required: true, schema: {type: string}}
    id: {name: id, in: path, required: true, schema: {type: string}}
  responses:
    Error:
      description: A refusal with a stable reason.
      content:
        application/json:
          schema: {$ref: "#/components/schemas/Error"}
  schemas:
    Error:
      type: object
      properties:
        error:
          type: object
          required: [reason, message]
          properties: {reason: {type: string}, message: {type: string}}
    App:
      type: object
      properties:
        id: {type: string}
        overflow: {enum: [reject, keepSoonest]}
        push: {$ref: "#/components/schemas/PushSettings"}
        customKinds: {type: array, items: {$ref: "#/components/schemas/CustomKind"}}
    PushSettings:
      type: object
      required: [environment, auth]
      description: >
        File paths (keyFile, certFile, caFile) and custom https:// environments need an admin key
        (403 forbidden otherwise); an app key uploads credentials as content. Uploaded secrets and
        passwords are answered as "********"; sending that mask back keeps the stored secret.
      properties:
        environment: {type: string, description: "production, sandbox, or https://host:port (admin)"}
        caFile: {type: string, description: admin only}
        auth:
          oneOf:
            - {type: object, required: [type, teamId, keyId, key], properties: {type: {const: token}, teamId: {type: string}, keyId: {type: string}, key: {type: string, description: "PEM text of the .p8 key"}}}
            - {type: object, required: [type, teamId, keyId, keyFile], properties: {type: {const: token}, teamId: {type: string}, keyId: {type: string}, keyFile: {type: string, description: admin only}}}
            - {type: object, required: [type, certificate, privateKey], properties: {type: {const: certificate}, certificate: {type: string, description: PEM}, privateKey: {type: string, description: PEM}}}
            - {type: object, required: [type, pkcs12], properties: {type: {const: certificate}, pkcs12: {type: string, description: base64 of the .p12}, password: {type: string}}}
            - {type: object, required: [type, certFile], properties: {type: {const: certificate}, certFile: {type: string, description: admin only}, keyFile: {type: string}, password: {type: string}}}
    CustomKind:
      type: object
      required: [name, rule]
      properties: {name: {type: string}, rule: {enum: [latest, sum, union, toggle]}, keyed: {type: boolean}}
    Device:
      type: object
      required: [timeZone]
      properties:
        timeZone: {type: string, description: IANA zone}
        token: {type: string, description: hex}
        voipToken: {type: string}
        locale: {type: string}
        backgroundModes: {type: array, items: {enum: [remote-notification, voip, fetch]}}
        state: {enum: [notRunning, inactive, active, background, suspended], readOnly: true}
    Repeat:
      type: object
      required: [unit]
      properties:
        unit: {enum: [minute, hour, day, week, month, quarter, year]}
        every: {type: integer, minimum: 1}
        count: {type: integer, minimum: 1}
        until: {type: string}
    Notification:
      type: object
      required: [fireDate, alert]
      properties:
        id: {type: string}
        fireDate: {type: string, description: "RFC 3339 instant without timeZone, or YYYY-MM-DDTHH:MM[:SS] with timeZone"}
        timeZone: {type: [string, "null"], description: "IANA id, or floating"}
        repeat: {$ref: "#/components/schemas/Repeat"}
        alert:
          type: object
          required: [body]
          properties: {title: {type: string}, subtitle: {type: string}, body: {type: string}}
        sound: {type: string}
        badge: {type: integer}
        category: {type: string}
        threadId: {type: string}
        userInfo: {type: object}
        nextFireDate: {type: string, readOnly: true}
        occurrences: {type: array, items: {type: string}, readOnly: true}
    Delivery:
      type: object
      properties:
        occurrenceId: {type: string}
        notificationId: {type: string}
        scheduledFor: {type: string}
        firedAt: {type: string}
        late: {type: boolean}
        missed: {type: integer}
        channel: {enum: [stream, push, inbox, recorded, none]}
        outcome: {type: string}
        apnsStatus: {type: integer}
        apnsId: {type: string}
    Event:
      type: object
      required: [kind]
      properties: {kind: {type: string}, key: {type: string}, value: {}}
    Wake:
      type: object
      properties:
        state: {type: string}
        woke: {type: boolean}
        notifications: {type: array, items: {type: object, properties: {kind: {type: string}, key: {type: string}, value: {}, count: {type: integer}}}}
        backlogSeq: {type: integer, description: "acknowledges notifications (absent when there are none); until acknowledged they are handed over again, merged with what came since"}
        inbox: {type: array, items: {type: object}}
    PushEntry:
      type: object
      required: [app, aps]
      properties:
        app: {type: string}
        tokens: {type: array, items: {type: string}}
        devices: {type: array, items: {type: string}}
        type: {enum: [alert, background, voip, complication, fileprovider, liveactivity, location, pushtotalk, widgets, controls, mdm]}
        topic: {type: string}
        priority: {type: integer}
        expiration: {type: integer}
        collapseId: {type: string, maxLength: 64}
        id: {type: string, format: uuid}
        aps: {type: object}
        data: {type: object}
    PushResult:
      type: object
      properties:
        notification: {type: integer}
        token: {type: string}
        device: {type: string}
        status: {type: integer}
        apnsId: {type: string}
        reason: {type: string}
        timestamp: {type: integer}
    Hook:
      type: object
      required: [app, secrets, template]
      properties:
        app: {type: string}
        secrets: {type: array, items: {type: string, minLength: 16}}
        toleranceSeconds: {type: integer}
        template: {type: object}
paths:
  /healthz: {get: {security: [], summary: Liveness, responses: {"200": {description: ok}}}}
  /readyz: {get: {security: [], summary: Readiness (timers armed), responses: {"200": {description: ready}}}}
  /metrics: {get: {security: [], summary: Prometheus metrics, responses: {"200": {description: text exposition}}}}
  /openapi.yaml: {get: {security: [], summary: This document, responses: {"200": {description: OpenAPI YAML}}}}
  /v1/apps/{app}:
    parameters: [{$ref: "#/components/parameters/app"}]
    put: {summary: Create or update an app, requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/App"}}}}, responses: {"200": {description: updated}, "201": {description: created}, "403": {$ref: "#/components/responses/Error"}, "422": {$ref: "#/components/responses/Error"}}}
    get: {summary: Read an app, responses: {"200": {description: the app}, "404": {$ref: "#/components/responses/Error"}}}
    delete: {summary: Delete an app with its devices, responses: {"204": {description: deleted}, "404": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    put: {summary: Register a device, requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Device"}}}}, responses: {"200": {description: updated}, "201": {description: created}, "422": {$ref: "#/components/responses/Error"}}}
    get: {summary: Read a device, responses: {"200": {description: the device}, "404": {$ref: "#/components/responses/Error"}}}
    delete: {summary: Delete a device, responses: {"204": {description: deleted}}}
  /v1/apps/{app}/devices/{device}/notifications:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post: {summary: "Schedule (same id replaces); 422 payloadTooLarge when its alert push would exceed 4096 bytes", requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Notification"}}}}, responses: {"201": {description: stored, with nextFireDate and evicted}, "409": {$ref: "#/components/responses/Error"}, "422": {$ref: "#/components/responses/Error"}}}
    get: {summary: Pending notifications sorted by nextFireDate, responses: {"200": {description: "{notifications: [...]}"}}}
    delete: {summary: Cancel all, responses: {"200": {description: "{cancelled: N}"}}}
  /v1/apps/{app}/devices/{device}/notifications/{id}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}, {$ref: "#/components/parameters/id"}]
    get: {summary: One notification with a preview, parameters: [{name: occurrences, in: query, schema: {type: integer, maximum: 100}}], responses: {"200": {description: the notification}, "404": {$ref: "#/components/responses/Error"}}}
    delete: {summary: Cancel one, responses: {"204": {description: cancelled}, "404": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}/present:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post: {summary: Deliver now without storing, responses: {"200": {description: "{delivery}"}}}
  /v1/apps/{app}/devices/{device}/deliveries:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get: {summary: Deliveries newest first, parameters: [{name: limit, in: query, schema: {type: integer, maximum: 1000}}], responses: {"200": {description: "{deliveries: [Delivery]}"}}}
  /v1/apps/{app}/devices/{device}/state:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    put: {summary: Lifecycle state (waking returns the backlog), responses: {"200": {description: Wake, content: {application/json: {schema: {$ref: "#/components/schemas/Wake"}}}}, "422": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}/wake:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post: {summary: "Wake and receive the coalesced backlog and inbox; ack first acknowledges what was handed over up to that seq (inbox items, backlogSeq)", requestBody: {content: {application/json: {schema: {type: object, properties: {state: {enum: [active, background]}, ack: {type: integer, minimum: 0}}}}}}, responses: {"200": {description: Wake, content: {application/json: {schema: {$ref: "#/components/schemas/Wake"}}}}, "422": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}/inbox/ack:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post: {summary: "Acknowledge what was handed over up to a sequence id: inbox items, and the backlog when upTo reaches its backlogSeq (both stay until acknowledged)", requestBody: {content: {application/json: {schema: {type: object, required: [upTo], properties: {upTo: {type: integer, minimum: 0}}}}}}, responses: {"200": {description: "{acknowledged: N inbox items, backlog: true when the backlog hand-over was acknowledged}"}, "422": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}/events:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post: {summary: Report system events, requestBody: {content: {application/json: {schema: {type: object, properties: {events: {type: array, items: {$ref: "#/components/schemas/Event"}}}}}}}, responses: {"200": {description: "{accepted, live, queued, backlog}"}, "422": {$ref: "#/components/responses/Error"}}}
  /v1/apps/{app}/devices/{device}/events/backlog:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get: {summary: Preview the coalesced backlog, responses: {"200": {description: "{notifications}"}}}
  /v1/apps/{app}/devices/{device}/events/stream:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}, {name: foreground, in: query, schema: {type: boolean}}, {name: Last-Event-ID, in: header, schema: {type: integer}, description: "the last event id received: acknowledges the inbox, and the backlog, up to it"}]
    get: {summary: Live event stream (Server-Sent Events), responses: {"200": {description: "text/event-stream: the backlog's system events, the inbox (notification events with id: <seq>), a handedOver event whose id acknowledges the backlog, then live system and notification events, heartbeats"}}}
  /v1/push:
    post: {summary: Send pushes, results per token, requestBody: {content: {application/json: {schema: {type: object, properties: {notifications: {type: array, items: {$ref: "#/components/schemas/PushEntry"}}}}}}}, responses: {"200": {description: "{results: [PushResult]}"}, "413": {$ref: "#/components/responses/Error"}}}
  /v1/hooks/{name}:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    put: {summary: Define a signed inbound hook (admin), requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Hook"}}}}, responses: {"201": {description: created}, "422": {$ref: "#/components/responses/Error"}}}
    get: {summary: Read a hook (secrets hidden), responses: {"200": {description: the hook}}}
    delete: {summary: Delete a hook, responses: {"204": {description: deleted}}}
    post:
      security: []
      summary: Deliver a signed webhook
      description: >
        A replay of an accepted request (the same signed timestamp and body), or a resend with an
        idempotency key already seen (from the template's pointer into the signed body, or the
        header as an extra key), pushes nothing and answers 200 with Idempotent-Replayed: true and
        the first answer. Rate-limited per hook (429 rateLimited).
      parameters:
        - {name: Herald-Signature, in: header, required: true, schema: {type: string}, description: "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>"}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      responses: {"200": {description: "{pushed, filtered, results}"}, "401": {$ref: "#/components/responses/Error"}, "409": {$ref: "#/components/responses/Error"}, "413": {$ref: "#/components/responses/Error"}, "422": {$ref: "#/components/responses/Error"}, "429": {$ref: "#/components/responses/Error"}}
  /v1/feedback/outbox:
    get: {summary: Outbound feedback messages (admin), parameters: [{name: state, in: query, schema: {enum: [pending, delivered, parked]}}], responses: {"200": {description: "{full, fullReceivers, messages}"}}}
  /v1/feedback/outbox/{id}/retry:
    post: {summary: Retry a parked message, parameters: [{$ref: "#/components/parameters/id"}], responses: {"202": {description: queued}, "404": {$ref: "#/components/responses/Error"}}}
"""#
}
