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
    and coalesced system events. Every error is {"error": {"reason", "message"}} with a stable
    reason; each operation lists the reasons it can answer. A refused request (4xx) changes
    nothing stored. With API keys configured, send Authorization: Bearer <key>; without keys
    the server listens on loopback only and 401, 403 and 429 do not occur. Any operation may
    answer 503 storeUnavailable, with Retry-After, while the node cannot reach its store; the
    request may be sent again.
servers:
  - url: http://127.0.0.1:8580
security:
  - apiKey: []
components:
  securitySchemes:
    apiKey: {type: http, scheme: bearer}
  parameters:
    fragment: {name: fragment, in: query, required: false, description: "main: only the page's main content", schema: {enum: [main]}}
    app:
      name: app
      in: path
      required: true
      description: The app's bundle id.
      schema: {$ref: "#/components/schemas/Identifier"}
      example: com.example.fuzz
    device:
      name: device
      in: path
      required: true
      schema: {$ref: "#/components/schemas/Identifier"}
      example: fuzz-device
    notification:
      name: id
      in: path
      required: true
      schema: {$ref: "#/components/schemas/Identifier"}
      example: fuzz-note
    hook:
      name: name
      in: path
      required: true
      schema: {$ref: "#/components/schemas/Identifier"}
      example: fuzz-hook
  responses:
    StatusPage:
      description: the page, or with fragment=main only the content the page's script swaps in every 2 s
      content:
        text/html: {schema: {type: string}}
    InvalidFragment:
      description: "invalidFragment: fragment is not main"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [invalidFragment]}}}}
    Unauthorized:
      description: "unauthorized: no valid API key (only when keys are configured)"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [unauthorized]}}}}
    Forbidden:
      description: "forbidden: an app key used on another app's route or an admin-only route"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [forbidden]}}}}
    RateLimited:
      description: "rateLimited: this key's (or hook's) request rate is exceeded"
      headers:
        Retry-After: {description: seconds to wait, schema: {type: integer}}
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [rateLimited]}}}}
    ShuttingDown:
      description: "shuttingDown: this node is stopping; reconnect (to it once back, or to another node)"
      headers:
        Retry-After: {description: seconds to wait, schema: {type: integer}}
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [shuttingDown]}}}}
    BodyTooLarge:
      description: "bodyTooLarge: the body is over api.maxBodyBytes"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [bodyTooLarge]}}}}
    BadPath:
      description: "invalidPath: a path parameter is not valid percent-encoding"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [invalidPath]}}}}
    BadBody:
      description: "invalidJSON: the body is missing or not JSON; invalidPath as above"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [invalidJSON, invalidPath]}}}}
    AppNotFound:
      description: the app does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound]}}}}
    DeviceNotFound:
      description: the app or the device does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound, deviceNotFound]}}}}
    NotificationNotFound:
      description: the app, the device or the notification does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound, deviceNotFound, notificationNotFound]}}}}
    HookNotFound:
      description: the hook does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [hookNotFound]}}}}
    InvalidId:
      description: "invalidId: a path identifier breaks the identifier rules"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [invalidId]}}}}
  schemas:
    PushOutcomeCounts:
      type: object
      description: pushes by outcome (accepted, unregistered, rejected, refused, failed, timedOut); absent outcomes are 0
      additionalProperties: {type: integer}
    Identifier:
      type: string
      description: "1-200 characters of A-Z, a-z, 0-9, '.', '-' or '_'"
      pattern: "^[A-Za-z0-9._-]{1,200}$"
    Error:
      type: object
      required: [error]
      properties:
        error:
          type: object
          required: [reason, message]
          properties:
            reason: {type: string, description: stable and machine-readable}
            message: {type: string, description: for people}
    Status:
      type: object
      required: [status]
      properties: {status: {type: string}}
    AppInput:
      type: object
      description: Optional fields may be absent or null, which means the default.
      properties:
        overflow: {enum: [reject, keepSoonest, null], description: "what scheduling a 129th notification does (default reject)"}
        push:
          description: "the app's APNs settings; absent or null: none"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/PushSettings"}]
        customKinds: {type: [array, "null"], maxItems: 64, items: {$ref: "#/components/schemas/CustomKind"}}
        fcm:
          description: "the app's FCM HTTP v1 settings, for android installations; absent or null: none"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/FCMSettingsInput"}]
        webPush:
          description: "the app's Web Push settings, for web installations; absent or null: none"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/WebPushSettings"}]
    App:
      type: object
      required: [id, overflow, customKinds]
      properties:
        id: {type: string}
        overflow: {enum: [reject, keepSoonest]}
        push: {$ref: "#/components/schemas/PushSettings"}
        customKinds: {type: array, items: {$ref: "#/components/schemas/CustomKind"}}
        fcm: {$ref: "#/components/schemas/FCMSettings"}
        webPush: {$ref: "#/components/schemas/WebPushSettings"}
    FCMSettingsInput:
      type: object
      description: >
        serviceAccount is the service-account key file's JSON exactly as Google issues it (content);
        an admin may name serviceAccountFile instead, another endpoint (default
        https://fcm.googleapis.com), a token_uri other than Google's, and a caFile (403 forbidden
        otherwise). Herald posts an RS256 assertion to token_uri for an access token.
      properties:
        serviceAccount:
          type: [object, "null"]
          required: [project_id, client_email, private_key, token_uri]
          properties:
            project_id: {type: string}
            client_email: {type: string}
            private_key: {type: string, description: PKCS#8 PEM RSA key}
            private_key_id: {type: [string, "null"]}
            token_uri: {type: string}
        serviceAccountFile: {type: [string, "null"], description: admin only}
        endpoint: {type: [string, "null"], description: admin only unless https://fcm.googleapis.com}
        caFile: {type: [string, "null"], description: admin only}
    FCMSettings:
      type: object
      description: The FCM settings as shown; the private key never is.
      properties:
        projectId: {type: string}
        clientEmail: {type: string}
        serviceAccountFile: {type: string}
        endpoint: {type: string}
        caFile: {type: string}
    WebPushSettings:
      type: object
      required: [subject]
      description: >
        Herald generates the VAPID key pair when none is stored (an admin may upload
        vapidPrivateKey) and keeps it across PUTs that carry webPush; vapidPublicKey is the
        applicationServerKey pages subscribe with. The private key is never shown. Admin only:
        vapidPrivateKey, caFile, allowedHosts (the hosts subscription endpoints may name; default
        fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com, *.push.apple.com,
        *.notify.windows.com).
      properties:
        subject: {type: string, description: "mailto: or https: contact"}
        vapidPublicKey: {type: [string, "null"], description: base64url of the 65-byte uncompressed P-256 point}
        vapidPrivateKey: {type: [string, "null"], description: admin only; PKCS#8 PEM; never answered}
        caFile: {type: [string, "null"], description: admin only}
        allowedHosts: {type: [array, "null"], items: {type: string}, description: admin only}
    PushSettings:
      type: object
      required: [environment, auth]
      description: >
        File paths (keyFile, certFile, caFile) and custom https:// environments need an admin key
        (403 forbidden otherwise); an app key uploads credentials as content. Uploaded secrets and
        passwords are answered as "********"; sending that mask back keeps the stored secret.
      properties:
        environment: {type: string, description: "production, sandbox, or https://host:port (admin)"}
        caFile: {type: [string, "null"], description: admin only}
        auth:
          type: object
          required: [type]
          description: >
            type token: teamId, keyId and either key (PEM text of the .p8 key) or keyFile (admin).
            type certificate: certificate and privateKey (PEM), or pkcs12 (base64) with an
            optional password, or certFile (admin) with an optional keyFile and password.
          properties:
            type: {enum: [token, certificate]}
            teamId: {type: string, description: the 10-character team id}
            keyId: {type: string, description: the 10-character key id}
            key: {type: [string, "null"]}
            keyFile: {type: [string, "null"]}
            certificate: {type: [string, "null"]}
            privateKey: {type: [string, "null"]}
            certFile: {type: [string, "null"]}
            pkcs12: {type: [string, "null"]}
            password: {type: [string, "null"]}
    CustomKind:
      type: object
      required: [name, rule]
      properties:
        name: {type: string, description: "a letter, then letters, digits, '.', '-' or '_'; at most 64; not a built-in kind"}
        rule: {enum: [latest, sum, union, toggle]}
        keyed: {type: [boolean, "null"]}
    DeviceInput:
      type: object
      required: [timeZone]
      description: >
        The address must fit the platform (422 addressNotForPlatform otherwise): token and
        voipToken for ios, fcmToken for android, webPush for web. Changing the platform re-routes
        pending notifications.
      properties:
        timeZone: {type: string, description: "IANA zone", example: Europe/Paris}
        platform: {enum: [ios, android, web, null], description: "default ios"}
        token: {type: [string, "null"], description: "APNs token: 16-200 hex digits, even count"}
        voipToken: {type: [string, "null"], description: "16-200 hex digits, even count"}
        fcmToken: {type: [string, "null"], description: "FCM registration token"}
        webPush:
          description: "the browser's PushSubscription.toJSON(); absent or null: none"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/WebPushSubscription"}]
        locale: {type: [string, "null"], example: en_US}
        backgroundModes: {type: [array, "null"], items: {enum: [remote-notification, voip, fetch]}}
    WebPushSubscription:
      type: object
      required: [endpoint, keys]
      properties:
        endpoint: {type: string, description: "https URL on one of the app's allowed push services"}
        expirationTime: {type: [number, "null"]}
        keys:
          type: object
          required: [p256dh, auth]
          properties:
            p256dh: {type: string, description: base64url of the 65-byte uncompressed P-256 point}
            auth: {type: string, description: base64url of 16 bytes}
    Device:
      type: object
      required: [app, id, timeZone, platform, token, voipToken, fcmToken, webPush, locale, state, backgroundModes]
      properties:
        app: {type: string}
        id: {type: string}
        timeZone: {type: string}
        platform: {enum: [ios, android, web]}
        token: {type: [string, "null"]}
        voipToken: {type: [string, "null"]}
        fcmToken: {type: [string, "null"]}
        webPush:
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/WebPushSubscription"}]
        locale: {type: [string, "null"]}
        state: {$ref: "#/components/schemas/LifecycleState"}
        backgroundModes: {type: array, items: {type: string}}
    LifecycleState: {enum: [notRunning, inactive, active, background, suspended]}
    Repeat:
      type: object
      properties:
        unit: {enum: [minute, hour, day, week, month, quarter, year, null]}
        every: {type: [integer, "null"], minimum: 1}
        count: {type: [integer, "null"], minimum: 1}
        until: {type: [string, "null"], description: "an RFC 3339 instant, or a wall-clock time for a zoned or floating notification"}
    Alert:
      type: object
      properties: {title: {type: [string, "null"]}, subtitle: {type: [string, "null"]}, body: {type: [string, "null"]}}
    NotificationInput:
      type: object
      required: [fireDate, alert]
      properties:
        id: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}], description: "absent or null: a new UUID"}
        fireDate: {type: string, description: "RFC 3339 instant without timeZone, or YYYY-MM-DDTHH:MM[:SS] with timeZone", example: "2035-06-01T09:00:00Z"}
        timeZone: {type: [string, "null"], description: "IANA id, or floating"}
        repeat: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Repeat"}]}
        alert:
          type: object
          required: [body]
          properties: {title: {type: [string, "null"]}, subtitle: {type: [string, "null"]}, body: {type: string, minLength: 1}}
        sound: {type: [string, "null"], minLength: 1}
        badge: {type: [integer, "null"], minimum: 0, maximum: 99999}
        category: {type: [string, "null"]}
        threadId: {type: [string, "null"]}
        userInfo: {type: [object, "null"]}
    PresentInput:
      type: object
      required: [alert]
      properties:
        id: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}], description: "absent or null: a new UUID"}
        alert:
          type: object
          required: [body]
          properties: {title: {type: [string, "null"]}, subtitle: {type: [string, "null"]}, body: {type: string, minLength: 1}}
        sound: {type: [string, "null"], minLength: 1}
        badge: {type: [integer, "null"], minimum: 0, maximum: 99999}
        category: {type: [string, "null"]}
        threadId: {type: [string, "null"]}
        userInfo: {type: [object, "null"]}
    Notification:
      type: object
      required: [id, app, device, fireDate, timeZone, repeat, alert, nextFireDate, nextOccurrence]
      properties:
        id: {type: string}
        app: {type: string}
        device: {type: string}
        fireDate: {type: string}
        timeZone: {type: [string, "null"]}
        repeat:
          oneOf:
            - {type: "null"}
            - {$ref: "#/components/schemas/Repeat"}
        alert: {$ref: "#/components/schemas/Alert"}
        sound: {type: string}
        badge: {type: integer}
        category: {type: string}
        threadId: {type: string}
        userInfo: {type: object}
        nextFireDate: {type: string}
        nextOccurrence: {type: integer}
        occurrences: {type: array, items: {type: string}, description: "with ?occurrences=N: the next N fire dates"}
    Scheduled:
      description: >
        The stored notification's fields beside stored, replaced and evicted; when keepSoonest
        evicted the new notification itself, only stored (false), replaced and evicted.
      type: object
      required: [stored, replaced, evicted]
      properties:
        stored: {type: boolean}
        replaced: {type: boolean}
        evicted: {type: array, items: {type: string}}
    Delivery:
      type: object
      required: [occurrenceId, notificationId, scheduledFor, firedAt, late, missed, channel, outcome]
      properties:
        occurrenceId: {type: string}
        notificationId: {type: string}
        scheduledFor: {type: string}
        firedAt: {type: string}
        late: {type: boolean}
        missed: {type: integer}
        channel: {type: string, description: "stream, push, inbox, recorded or none"}
        outcome: {type: string}
        apnsStatus: {type: integer}
        apnsId: {type: string}
    Event:
      type: object
      required: [kind]
      properties:
        kind: {type: string, description: "a built-in kind (accessory, orientation, significantTimeChange, timeZone, batteryLevel, batteryState, proximity, protectedData, screen, screenMode, settings, locale, ubiquityIdentity) or a custom kind of the app"}
        key: {type: string}
        value: {}
    Coalesced:
      type: object
      required: [kind, value, count]
      properties:
        kind: {type: string}
        key: {type: string}
        value: {}
        count: {type: integer}
    InboxItem:
      type: object
      required: [occurrenceId, notificationId, scheduledFor, firedAt, late, missed, alert]
      properties:
        occurrenceId: {type: string}
        notificationId: {type: string}
        scheduledFor: {type: string}
        firedAt: {type: string}
        late: {type: boolean}
        missed: {type: integer}
        alert: {$ref: "#/components/schemas/Alert"}
        sound: {type: string}
        badge: {type: integer}
        category: {type: string}
        threadId: {type: string}
        userInfo: {type: object}
        seq: {type: integer, description: the sequence id to acknowledge}
    Wake:
      type: object
      required: [state, woke, notifications, inbox]
      properties:
        state: {$ref: "#/components/schemas/LifecycleState"}
        woke: {type: boolean}
        notifications: {type: array, items: {$ref: "#/components/schemas/Coalesced"}}
        backlogSeq: {type: integer, description: "acknowledges notifications (absent when there are none); until acknowledged they are handed over again, merged with what came since"}
        inbox: {type: array, items: {$ref: "#/components/schemas/InboxItem"}}
    PushEntry:
      type: object
      required: [app, aps]
      description: one of tokens and devices
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
      required: [notification, status]
      description: >
        One row per token or device. A device goes through its platform's service: APNs (ios),
        FCM (android), Web Push (web). status 200 (201 for Web Push) with apnsId (FCM's message
        name, Web Push's Location) when the service accepted it; otherwise the service's status
        and reason (APNs' reason, FCM's errorCode such as UNREGISTERED, Web Push's
        subscriptionGone), or a refusal before sending (403 forbidden, 404 appNotFound or
        deviceNotFound, 410 tokenInvalidated, 422 with the reason of what is wrong in that entry).
      properties:
        notification: {type: integer, description: the entry's index in the batch}
        token: {type: string}
        device: {type: string}
        status: {type: integer}
        apnsId: {type: string}
        reason: {type: string}
        timestamp: {type: integer}
    HookInput:
      type: object
      required: [app, secrets, template]
      properties:
        app: {$ref: "#/components/schemas/Identifier"}
        secrets: {type: array, minItems: 1, items: {type: string, minLength: 16}}
        toleranceSeconds: {type: [integer, "null"], minimum: 1, maximum: 86400}
        template: {$ref: "#/components/schemas/PushTemplate"}
    PushTemplate:
      type: object
      description: "exactly one of tokens and devices (JSON pointers into the hook's body); text fields take {/pointer} placeholders"
      properties:
        tokens: {type: [string, "null"]}
        devices: {type: [string, "null"]}
        type: {enum: [alert, background, voip, null]}
        title: {type: [string, "null"]}
        subtitle: {type: [string, "null"]}
        body: {type: [string, "null"]}
        sound: {type: [string, "null"]}
        badge: {type: [integer, string, "null"]}
        collapseId: {type: [string, "null"]}
        data: {type: [object, "null"], additionalProperties: {type: [string, "null"]}}
        filter:
          type: [object, "null"]
          required: [pointer, equals]
          properties: {pointer: {type: string}, equals: {}}
        idempotencyKey: {type: [string, "null"]}
    Hook:
      type: object
      required: [name, app, secrets, template]
      properties:
        name: {type: string}
        app: {type: string}
        secrets: {type: integer, description: how many secrets are set (they are never shown)}
        toleranceSeconds: {type: integer}
        template: {$ref: "#/components/schemas/PushTemplate"}
    HookReply:
      type: object
      required: [pushed, filtered, results]
      properties:
        pushed: {type: boolean}
        filtered: {type: boolean, description: the template's filter did not match}
        results: {type: array, items: {$ref: "#/components/schemas/PushResult"}}
    OutboxMessage:
      type: object
      required: [id, event, url, type, state, attempts, nextAttemptAt]
      properties:
        id: {type: integer}
        event: {type: integer}
        url: {type: string}
        type: {type: string}
        state: {enum: [pending, delivered, parked]}
        attempts: {type: integer}
        nextAttemptAt: {type: string}
        lastError: {type: string}
paths:
  /healthz:
    get:
      security: []
      summary: Liveness
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Status"}}}}
  /readyz:
    get:
      security: []
      summary: Readiness (the store answers within 2 s, and no loop keeps failing or has stalled)
      responses:
        "200": {description: ready, content: {application/json: {schema: {$ref: "#/components/schemas/Status"}}}}
        "503":
          description: "not ready: problems names the store's error or each failing or stalled loop"
          content:
            application/json:
              schema: {type: object, required: [status, problems], properties: {status: {const: unready}, problems: {type: string}}}
  /metrics:
    get:
      security: []
      summary: Prometheus metrics
      responses:
        "200": {description: text exposition, content: {text/plain: {schema: {type: string}}}}
  /openapi.yaml:
    get:
      security: []
      summary: This document
      responses:
        "200": {description: OpenAPI YAML, content: {application/yaml: {schema: {type: object}}}}
  /v1/apps/{app}:
    parameters: [{$ref: "#/components/parameters/app"}]
    put:
      summary: Create or replace an app; push credentials are loaded before anything is stored
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/AppInput"}}}
      responses:
        "200": {description: replaced, content: {application/json: {schema: {$ref: "#/components/schemas/App"}}}}
        "201": {description: created, content: {application/json: {schema: {$ref: "#/components/schemas/App"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidId, invalidField, missingField, invalidOverflow, tooManyCustomKinds, invalidCustomKind, invalidPushEnvironment, invalidPushCredentials, pushEnvironmentNotAllowed, credentialPathNotAllowed, invalidFCMServiceAccount, invalidFCMSettings, invalidWebPushSettings]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: Read an app (secrets masked)
      responses:
        "200": {description: the app, content: {application/json: {schema: {$ref: "#/components/schemas/App"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "422": {$ref: "#/components/responses/InvalidId"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Delete an app with its devices and their notifications
      responses:
        "204": {description: deleted}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "422": {$ref: "#/components/responses/InvalidId"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    put:
      summary: Register or replace a device (its lifecycle state is kept)
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/DeviceInput"}}}
      responses:
        "200": {description: replaced, content: {application/json: {schema: {$ref: "#/components/schemas/Device"}}}}
        "201": {description: created, content: {application/json: {schema: {$ref: "#/components/schemas/Device"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidId, invalidField, missingField, invalidTimeZone, invalidToken, invalidLocale, invalidBackgroundMode, invalidPlatform, addressNotForPlatform, invalidFcmToken, invalidWebPushEndpoint, webPushHostNotAllowed, invalidWebPushKeys]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: Read a device
      responses:
        "200": {description: the device, content: {application/json: {schema: {$ref: "#/components/schemas/Device"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Delete a device with its notifications
      responses:
        "204": {description: deleted}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/notifications:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Schedule a notification (the same id replaces it)
      description: >
        409 notificationLimitReached when the device already has 128 pending and the app's
        overflow is reject; 422 payloadTooLarge when its alert push would exceed 4096 bytes.
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/NotificationInput"}}}
      responses:
        "200": {description: "not stored: keepSoonest evicted it at once", content: {application/json: {schema: {$ref: "#/components/schemas/Scheduled"}}}}
        "201":
          description: stored
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Notification"}, {$ref: "#/components/schemas/Scheduled"}]
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "409":
          description: the device's 128 pending notifications are reached
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [notificationLimitReached]}}}}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, invalidTimeZone, invalidFireDate, offsetWithTimeZone, timeZoneRequired, fireDateInPast, invalidRepeat, missingAlert, invalidBadge, invalidSound, invalidData, invalidPayload, payloadTooLarge]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: Pending notifications sorted by next fire date
      responses:
        "200":
          description: the pending notifications
          content:
            application/json:
              schema:
                type: object
                required: [notifications]
                properties: {notifications: {type: array, items: {$ref: "#/components/schemas/Notification"}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Cancel all of the device's notifications
      responses:
        "200":
          description: how many were cancelled
          content:
            application/json:
              schema: {type: object, required: [cancelled], properties: {cancelled: {type: integer}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/notifications/{id}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}, {$ref: "#/components/parameters/notification"}]
    get:
      summary: One notification, with a preview of its next occurrences
      parameters:
        - {name: occurrences, in: query, description: how many next fire dates to list, schema: {type: integer, minimum: 0, maximum: 100}}
      responses:
        "200": {description: the notification, content: {application/json: {schema: {$ref: "#/components/schemas/Notification"}}}}
        "400":
          description: "invalidOccurrences: occurrences is not an integer from 0 to 100; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidOccurrences, invalidPath]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotificationNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Cancel one notification
      responses:
        "204": {description: cancelled}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/NotificationNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/present:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Deliver a notification now, without scheduling it
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/PresentInput"}}}
      responses:
        "200":
          description: how it was delivered
          content:
            application/json:
              schema: {type: object, required: [delivery], properties: {delivery: {$ref: "#/components/schemas/Delivery"}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, missingAlert, invalidBadge, invalidSound, invalidData, invalidPayload, payloadTooLarge]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/deliveries:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get:
      summary: The device's deliveries, newest first
      parameters:
        - {name: limit, in: query, description: "at most this many (default 50)", schema: {type: integer, minimum: 1, maximum: 1000}}
      responses:
        "200":
          description: the deliveries
          content:
            application/json:
              schema: {type: object, required: [deliveries], properties: {deliveries: {type: array, items: {$ref: "#/components/schemas/Delivery"}}}}
        "400":
          description: "invalidLimit: limit is not an integer from 1 to 1000; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidLimit, invalidPath]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/state:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    put:
      summary: Report the lifecycle state; a device that wakes gets its backlog and inbox in the answer
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [state], properties: {state: {$ref: "#/components/schemas/LifecycleState"}}}
      responses:
        "200": {description: the new state, content: {application/json: {schema: {$ref: "#/components/schemas/Wake"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: "refused; invalidTransition for a move iOS does not make (notRunning to suspended)"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidState, invalidTransition]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/wake:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Wake and receive the coalesced backlog and the inbox
      description: "ack first acknowledges what was handed over up to that seq (inbox items, backlogSeq). The body may be empty."
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                state: {enum: [active, background, null], description: "default background"}
                ack: {type: [integer, "null"], minimum: 0}
      responses:
        "200": {description: the backlog and inbox, content: {application/json: {schema: {$ref: "#/components/schemas/Wake"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidState, invalidAck, invalidTransition]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/inbox/ack:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Acknowledge what was handed over up to a sequence id
      description: "Inbox items, and the backlog when upTo reaches its backlogSeq; both stay until acknowledged."
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [upTo], properties: {upTo: {type: integer, minimum: 0}}}
      responses:
        "200":
          description: what the acknowledgement removed
          content:
            application/json:
              schema:
                type: object
                required: [acknowledged, backlog]
                properties:
                  acknowledged: {type: integer, description: inbox items removed}
                  backlog: {type: boolean, description: the backlog hand-over was acknowledged}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidAck]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/events:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Report system events (live to an awake device, else queued and coalesced)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [events]
              properties: {events: {type: array, minItems: 1, description: "at most 1000 (413 tooManyEvents)", items: {$ref: "#/components/schemas/Event"}}}
      responses:
        "200":
          description: what happened to the events
          content:
            application/json:
              schema:
                type: object
                required: [accepted, live, queued, backlog]
                properties: {accepted: {type: integer}, live: {type: integer}, queued: {type: integer}, backlog: {type: integer}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413":
          description: "tooManyEvents: more than 1000 events; bodyTooLarge"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [tooManyEvents, bodyTooLarge]}}}}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, unknownEventKind, missingEventKey, invalidEventKey, unexpectedEventKey, invalidEventValue, unexpectedEventValue, eventSumOverflow, tooManyUnionMembers, tooManyEventKeys]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/events/backlog:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get:
      summary: Preview the coalesced backlog without handing it over
      responses:
        "200":
          description: the backlog
          content:
            application/json:
              schema: {type: object, required: [notifications], properties: {notifications: {type: array, items: {$ref: "#/components/schemas/Coalesced"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/events/stream:
    parameters:
      - {$ref: "#/components/parameters/app"}
      - {$ref: "#/components/parameters/device"}
      - {name: foreground, in: query, description: "true: the device becomes active (else background)", schema: {type: boolean}}
      - {name: Last-Event-ID, in: header, schema: {type: integer}, description: "the last event id received: acknowledges the inbox, the backlog and live system events up to it"}
    get:
      summary: Live event stream (Server-Sent Events); connecting wakes the device
      responses:
        "200":
          description: "the backlog's system events, the inbox (notification events with id: <seq>, in order), a handedOver event whose id acknowledges the backlog, then live system events (the last of each report with id: <seq>) and notification events in id order, and heartbeat comments; closing the last stream suspends the device. A stream the server ends (the node stopping) closes with a retry: field"
          content: {text/event-stream: {schema: {type: string}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
        "503": {$ref: "#/components/responses/ShuttingDown"}
  /v1/push:
    post:
      summary: Send pushes, with a result per token
      description: >
        Each entry is judged on its own: a bad entry gets error rows in results (still 200) and
        the good ones go out. App keys may name only their own app (403 rows otherwise).
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [notifications]
              properties:
                notifications:
                  type: array
                  minItems: 1
                  description: "PushEntry objects; an entry that is not one gets its own 422 result row and the call still answers 200"
                  items: {anyOf: [{$ref: "#/components/schemas/PushEntry"}, {}]}
      responses:
        "200":
          description: one result row per token or device
          content:
            application/json:
              schema: {type: object, required: [results], properties: {results: {type: array, items: {$ref: "#/components/schemas/PushResult"}}}}
        "400":
          description: "invalidJSON: the body is missing or not JSON"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidJSON]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "413":
          description: "batchTooLarge: more entries than api.maxPushBatch; bodyTooLarge"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [batchTooLarge, bodyTooLarge]}}}}
        "422":
          description: "notifications is missing, empty or not an array"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [missingField, invalidField]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/hooks/{name}:
    parameters: [{$ref: "#/components/parameters/hook"}]
    put:
      summary: Define a signed inbound hook (admin)
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/HookInput"}}}
      responses:
        "200": {description: replaced, content: {application/json: {schema: {$ref: "#/components/schemas/Hook"}}}}
        "201": {description: created, content: {application/json: {schema: {$ref: "#/components/schemas/Hook"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidId, invalidField, missingField, missingWebhookSecret, weakWebhookSecret, invalidTolerance, invalidTemplate, invalidPointer]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: Read a hook (secrets are counted, never shown) (admin)
      responses:
        "200": {description: the hook, content: {application/json: {schema: {$ref: "#/components/schemas/Hook"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/HookNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Delete a hook (admin)
      responses:
        "204": {description: deleted}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/HookNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    post:
      security: []
      summary: Deliver a signed webhook
      description: >
        The signature is the credential. A replay of an accepted request (the same signed
        timestamp and body), or a resend with an idempotency key already seen (from the
        template's pointer into the signed body, or the header as an extra key), pushes nothing
        and answers 200 with Idempotent-Replayed: true and the first answer. Rate-limited per hook.
      parameters:
        - {name: Herald-Signature, in: header, required: true, schema: {type: string}, description: "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>"}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {description: "any JSON; the hook's template reads it through its pointers"}
            example: {device: fuzz-device, title: Order shipped, body: "Order 42 is on its way"}
      responses:
        "200":
          description: pushed, or filtered out by the template's filter
          headers:
            Idempotent-Replayed: {description: "true when this is the first answer again", schema: {type: string}}
          content: {application/json: {schema: {$ref: "#/components/schemas/HookReply"}}}
        "400":
          description: "invalidJSON: the signed body is not JSON; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidJSON, invalidPath]}}}}
        "401":
          description: the signature was refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [missingSignature, invalidSignatureHeader, staleTimestamp, invalidSignature]}}}}
        "404":
          description: the hook, or the app it pushes to, does not exist
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [hookNotFound, appNotFound]}}}}
        "409":
          description: "idempotencyKeyInProgress: the same request is still being handled"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [idempotencyKeyInProgress]}}}}
        "413":
          description: "tooManyTokens: over hooks.maxTokensPerRequest; bodyTooLarge"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [tooManyTokens, bodyTooLarge]}}}}
        "422":
          description: the body does not fit the template, or the push it makes is invalid
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [templateFailed, invalidTemplate, invalidData, invalidPayload, payloadTooLarge, invalidBackgroundPayload]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/feedback/outbox:
    get:
      summary: Outbound feedback messages (admin)
      parameters:
        - {name: state, in: query, schema: {enum: [pending, delivered, parked]}}
      responses:
        "200":
          description: the messages (at most 1000)
          content:
            application/json:
              schema:
                type: object
                required: [full, fullReceivers, messages]
                properties:
                  full: {type: boolean, description: some receiver's share of the outbox is full}
                  fullReceivers: {type: array, items: {type: string}}
                  messages: {type: array, items: {$ref: "#/components/schemas/OutboxMessage"}}
        "400":
          description: "invalidState: state is not pending, delivered or parked"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidState]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/feedback/outbox/{id}/retry:
    post:
      summary: Retry a parked message (admin)
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}, example: 1}
      responses:
        "202": {description: queued again}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404":
          description: no parked message with that id
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [messageNotFound]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/doctor:
    parameters: [{$ref: "#/components/parameters/app"}]
    post:
      summary: Check the app's push settings end to end (herald doctor); changes nothing stored
      description: >
        Settings allowed, credentials load, provider token signs, the host resolves, and a probe
        push to a made-up device token is answered by APNs over HTTP/2 with TLS. A failed check
        is reported in the body (healthy false), not as an error status.
      responses:
        "200":
          description: the checks, in order
          content:
            application/json:
              schema:
                type: object
                required: [app, healthy, checks]
                properties:
                  app: {type: string}
                  healthy: {type: boolean}
                  checks:
                    type: array
                    items:
                      type: object
                      required: [name, outcome, detail]
                      properties:
                        name: {enum: [settings, credentials, providerToken, dns, apns]}
                        outcome: {enum: [passed, failed, skipped]}
                        detail: {type: string}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "422": {$ref: "#/components/responses/InvalidId"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/status:
    get:
      summary: Every app, pending work, the outbox, pushes per minute and firing lateness (admin; herald status)
      responses:
        "200":
          description: the overview
          content:
            application/json:
              schema:
                type: object
                required: [apps, pendingNotifications, fireLogBacklog, outbox, pushesPerMinute, firingLateness]
                properties:
                  apps:
                    type: array
                    items:
                      type: object
                      required: [app, devices, pending, invalidTokens, pushesLastHour]
                      properties:
                        app: {type: string}
                        devices: {type: integer}
                        pending: {type: integer}
                        invalidTokens: {type: integer}
                        pushesLastHour: {$ref: "#/components/schemas/PushOutcomeCounts"}
                  pendingNotifications: {type: integer}
                  fireLogBacklog: {type: integer, description: fired, not yet delivered}
                  outbox: {type: object, properties: {pending: {type: integer}, parked: {type: integer}}}
                  pushesPerMinute:
                    type: array
                    description: the last 60 minutes, oldest first (this node)
                    items:
                      type: object
                      required: [minute, counts]
                      properties: {minute: {type: string, format: date-time}, counts: {$ref: "#/components/schemas/PushOutcomeCounts"}}
                  firingLateness:
                    type: array
                    items:
                      type: object
                      required: [count]
                      properties: {le: {type: [number, "null"], description: "upper bound in seconds; null: later than every bound"}, count: {type: integer}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/status/apps/{app}:
    parameters: [{$ref: "#/components/parameters/app"}]
    get:
      summary: One app's devices with their pending, inbox and backlog counts (admin)
      responses:
        "200":
          description: the app's status
          content:
            application/json:
              schema:
                type: object
                required: [app, pushesLastHour, devices]
                properties:
                  app: {type: string}
                  pushesLastHour: {$ref: "#/components/schemas/PushOutcomeCounts"}
                  devices:
                    type: array
                    items:
                      type: object
                      required: [device, state, timeZone, pending, inbox, backlog]
                      properties:
                        device: {type: string}
                        state: {type: string}
                        timeZone: {type: string}
                        pending: {type: integer}
                        inbox: {type: integer}
                        backlog: {type: integer}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/status/apps/{app}/devices/{device}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get:
      summary: One device's pending notifications with next occurrences, recent deliveries, inbox and coalesced backlog (admin)
      responses:
        "200":
          description: the device's status
          content:
            application/json:
              schema:
                type: object
                required: [app, device, state, timeZone, pending, deliveries, inbox, backlog]
                properties:
                  app: {type: string}
                  device: {type: string}
                  state: {type: string}
                  timeZone: {type: string}
                  pending:
                    type: array
                    items:
                      type: object
                      required: [id, body, nextOccurrences]
                      properties:
                        id: {type: string}
                        title: {type: [string, "null"]}
                        body: {type: string}
                        nextOccurrences: {type: array, items: {type: string, format: date-time}}
                  deliveries: {type: array, items: {$ref: "#/components/schemas/Delivery"}}
                  inbox:
                    type: array
                    items:
                      type: object
                      required: [seq, notificationId, firedAt]
                      properties: {seq: {type: integer}, notificationId: {type: string}, firedAt: {type: string, format: date-time}}
                  backlog: {type: array, items: {$ref: "#/components/schemas/Coalesced"}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /ui:
    get:
      summary: The status page (HTML, admin; a browser is asked for the key as a Basic password)
      parameters: [{$ref: "#/components/parameters/fragment"}]
      responses:
        "200": {$ref: "#/components/responses/StatusPage"}
        "400": {$ref: "#/components/responses/InvalidFragment"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /ui/outbox:
    get:
      summary: The feedback outbox page, with a retry button per parked message (HTML, admin)
      parameters: [{$ref: "#/components/parameters/fragment"}]
      responses:
        "200": {$ref: "#/components/responses/StatusPage"}
        "400": {$ref: "#/components/responses/InvalidFragment"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /ui/outbox/{id}/retry:
    post:
      summary: The outbox page's retry button (admin); needs X-Herald-UI, which another site's form cannot send
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}, example: 1}
        - {name: X-Herald-UI, in: header, required: true, schema: {enum: ["1"]}}
      responses:
        "202": {description: queued again}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403":
          description: "forbidden (an app key); notFromStatusPage: X-Herald-UI is missing"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [forbidden, notFromStatusPage]}}}}
        "404":
          description: no parked message with that id
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [messageNotFound]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
  /ui/apps/{app}:
    parameters: [{$ref: "#/components/parameters/app"}]
    get:
      summary: One app's devices page (HTML, admin)
      parameters: [{$ref: "#/components/parameters/fragment"}]
      responses:
        "200": {$ref: "#/components/responses/StatusPage"}
        "400":
          description: "invalidFragment; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidFragment, invalidPath]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /ui/apps/{app}/devices/{device}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get:
      summary: One device's page (HTML, admin)
      parameters: [{$ref: "#/components/parameters/fragment"}]
      responses:
        "200": {$ref: "#/components/responses/StatusPage"}
        "400":
          description: "invalidFragment; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidFragment, invalidPath]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
"""#
}
