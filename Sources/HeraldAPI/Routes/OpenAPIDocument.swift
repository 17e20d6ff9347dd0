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
    activity:
      name: activity
      in: path
      required: true
      description: A running Live Activity's id, as the app names it.
      schema: {$ref: "#/components/schemas/Identifier"}
      example: fuzz-activity
    channel:
      name: name
      in: path
      required: true
      description: A broadcast channel's name, as the app names it.
      schema: {$ref: "#/components/schemas/Identifier"}
      example: fuzz-channel
    refresh:
      name: refresh
      in: query
      required: false
      description: "true: also ask APNs's channel management API what it holds; any other value: only what Herald stored"
      schema: {type: string}
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
    ActivityNotFound:
      description: the app, the device or the activity does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound, deviceNotFound, activityNotFound]}}}}
    ChannelNotFound:
      description: the app or the channel does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound, channelNotFound]}}}}
    ChannelNotificationNotFound:
      description: the app, the channel or the notification does not exist
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [appNotFound, channelNotFound, notificationNotFound]}}}}
    ChannelsUnavailable:
      description: "pushNotConfigured: the app has no push settings; liveActivityNeedsTokenAuth: its APNs auth is a certificate (APNs manages channels for token auth only)"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [pushNotConfigured, liveActivityNeedsTokenAuth]}}}}
    APNsChannelsFailed:
      description: "apnsRefused: APNs's channel management API refused the call (its status and reason in the message); apnsUnreachable: it did not answer"
      content:
        application/json:
          schema:
            allOf: [{$ref: "#/components/schemas/Error"}]
            properties: {error: {properties: {reason: {enum: [apnsRefused, apnsUnreachable]}}}}
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
        channelsEnvironment: {type: [string, "null"], description: "where broadcast channels are managed (APNs's channel management API): production, sandbox, or https://host:port (admin); absent or null: as environment"}
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
        The address must fit the platform (422 addressNotForPlatform otherwise): token, voipToken
        and pushToStartTokens for ios, fcmToken for android, webPush for web. Changing the
        platform re-routes pending notifications. The Live Activities registered under
        .../activities are kept.
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
        pushToStartTokens:
          type: [object, "null"]
          description: "ios, iOS 17.2+: a push-to-start token per ActivityAttributes type name (identifier characters, else 422 invalidAttributesType), each 16-200 hex digits, even count"
          propertyNames: {$ref: "#/components/schemas/Identifier"}
          additionalProperties: {type: string, pattern: "^([0-9A-Fa-f]{2}){8,100}$"}
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
      required: [app, id, timeZone, platform, token, voipToken, fcmToken, webPush, locale, state, backgroundModes, pushToStartTokens, activities]
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
        pushToStartTokens: {type: object, additionalProperties: {type: string}, description: the push-to-start token per ActivityAttributes type}
        activities: {type: array, items: {$ref: "#/components/schemas/Activity"}, description: "the running Live Activities' update tokens, by activity id"}
    ActivityInput:
      type: object
      required: [token]
      properties:
        token: {type: string, pattern: "^([0-9A-Fa-f]{2}){8,100}$", description: "the activity's update token (pushTokenUpdates): 16-200 hex digits, even count"}
        attributesType:
          description: "its ActivityAttributes type name; absent or null: none"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}]
    Activity:
      type: object
      required: [activity, token]
      properties:
        activity: {type: string}
        token: {type: string, description: lowercase hex}
        attributesType: {type: string}
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
      required: [fireDate]
      description: >
        Exactly one of alert and liveActivity: neither is 422 missingAlert; liveActivity beside
        alert, sound, badge, category or threadId is 422 alertOrLiveActivity.
      oneOf:
        - required: [alert]
          properties: {alert: {type: object}, liveActivity: {type: "null"}}
        - required: [liveActivity]
          properties:
            liveActivity: {type: object}
            alert: {type: "null"}
            sound: {type: "null"}
            badge: {type: "null"}
            category: {type: "null"}
            threadId: {type: "null"}
      properties:
        id: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}], description: "absent or null: a new UUID"}
        fireDate: {type: string, description: "RFC 3339 instant without timeZone, or YYYY-MM-DDTHH:MM[:SS] with timeZone", example: "2035-06-01T09:00:00Z"}
        timeZone: {type: [string, "null"], description: "IANA id, or floating"}
        repeat: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Repeat"}]}
        alert:
          type: [object, "null"]
          required: [body]
          properties: {title: {type: [string, "null"]}, subtitle: {type: [string, "null"]}, body: {type: string, minLength: 1}}
        liveActivity:
          description: "instead of alert: a Live Activity push when it fires (ios devices only)"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/LiveActivity"}]
        sound: {type: [string, "null"], minLength: 1}
        badge: {type: [integer, "null"], minimum: 0, maximum: 99999}
        category: {type: [string, "null"]}
        threadId: {type: [string, "null"]}
        userInfo: {type: [object, "null"]}
    BroadcastInput:
      type: object
      required: [fireDate, liveActivity]
      description: >
        A scheduled broadcast on a channel: liveActivity with event update or end and no activity
        (422 missingLiveActivity without it, invalidLiveActivity otherwise); a broadcast carries no
        alert, sound, badge, category or threadId (422 alertOrLiveActivity).
      properties:
        id: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}], description: "absent or null: a new UUID"}
        fireDate: {type: string, description: "RFC 3339 instant without timeZone, or YYYY-MM-DDTHH:MM[:SS] with timeZone", example: "2035-06-01T09:00:00Z"}
        timeZone: {type: [string, "null"], description: "IANA id, or floating"}
        repeat: {oneOf: [{type: "null"}, {$ref: "#/components/schemas/Repeat"}]}
        liveActivity:
          allOf: [{$ref: "#/components/schemas/LiveActivity"}]
          properties: {event: {enum: [update, end]}, activity: {type: "null"}}
        alert: {type: "null"}
        sound: {type: "null"}
        badge: {type: "null"}
        category: {type: "null"}
        threadId: {type: "null"}
        userInfo: {type: [object, "null"]}
    LiveActivity:
      type: object
      required: [event]
      description: >
        An ActivityKit push (apns-push-type liveactivity), sent with token auth only. start (iOS
        17.2+) goes to the device's push-to-start token for attributesType and needs
        attributesType, attributes and contentState and no activity (422 missingAttributes,
        missingContentState, activityNotForStart); update and end go to the token the device
        registered for activity (422 missingActivity; unknownActivity when it is not registered),
        update with contentState (422 missingContentState). A broadcast on a channel is an update
        or end and names no activity. attributes, attributesType, inputPushChannel and
        inputPushToken belong to a start (422 invalidLiveActivity).
      properties:
        event: {enum: [start, update, end]}
        activity:
          description: "update and end: the registered activity it is for"
          oneOf: [{type: "null"}, {$ref: "#/components/schemas/Identifier"}]
        attributesType: {type: [string, "null"], minLength: 1, description: "start: the ActivityAttributes type to create"}
        attributes: {type: [object, "null"], description: "start: the static attributes"}
        contentState: {type: [object, "null"], description: "the activity's ContentState; required for start and update"}
        alert:
          type: [object, "null"]
          required: [body]
          description: shown with the change on the Lock Screen and in the Dynamic Island
          properties: {title: {type: [string, "null"]}, subtitle: {type: [string, "null"]}, body: {type: string, minLength: 1}}
        staleDate: {type: [string, "null"], format: date-time, description: "RFC 3339 instant the content is out of date (422 invalidDate otherwise)"}
        dismissalDate: {type: [string, "null"], format: date-time, description: "RFC 3339 instant an ended activity leaves the Lock Screen (422 invalidDate otherwise)"}
        relevanceScore: {type: [number, "null"], description: "which of the app's activities the Dynamic Island shows first (higher wins)"}
        inputPushChannel: {type: [string, "null"], description: "start, iOS 18: the apnsChannelId of the channel the activity listens on"}
        inputPushToken: {type: [boolean, "null"], description: "start, iOS 18: true asks the started activity for an update token"}
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
      required: [id, app, device, fireDate, timeZone, repeat, nextFireDate, nextOccurrence]
      description: "alert or liveActivity, as scheduled; a channel's broadcast has device channel:<name>"
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
        liveActivity: {$ref: "#/components/schemas/LiveActivity"}
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
      required: [occurrenceId, notificationId, scheduledFor, firedAt, late, missed]
      description: "alert, or liveActivity: a Live Activity change the device could not be pushed, for the app to apply itself"
      properties:
        occurrenceId: {type: string}
        notificationId: {type: string}
        scheduledFor: {type: string}
        firedAt: {type: string}
        late: {type: boolean}
        missed: {type: integer}
        alert: {$ref: "#/components/schemas/Alert"}
        liveActivity: {$ref: "#/components/schemas/LiveActivity"}
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
      required: [app]
      description: >
        aps, to one of tokens and devices; or liveActivity (type absent or liveactivity, no aps) to
        one of tokens, devices and channel. A device gets a start on its push-to-start token for
        the attributes type and an update or end on the activity's token; a channel gets an update
        or end broadcast to every activity subscribed to it. Refusals are result rows: 422
        alertOrLiveActivity, missingTokens, missingLiveActivity (channel without liveActivity),
        liveActivityNeedsTokenAuth, liveActivityNotForPlatform, unknownActivity and the
        LiveActivity reasons; 404 channelNotFound.
      properties:
        app: {type: string}
        tokens: {type: array, items: {type: string}}
        devices: {type: array, items: {type: string}}
        channel: {type: string, description: "a broadcast channel's name (with liveActivity)"}
        type: {enum: [alert, background, voip, complication, fileprovider, liveactivity, location, pushtotalk, widgets, controls, mdm]}
        topic: {type: string}
        priority: {type: integer}
        expiration: {type: integer}
        collapseId: {type: string, maxLength: 64}
        id: {type: string, format: uuid}
        aps: {type: object}
        liveActivity: {$ref: "#/components/schemas/LiveActivity"}
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
        channel: {type: string, description: a broadcast's channel}
        status: {type: integer}
        apnsId: {type: string}
        reason: {type: string}
        timestamp: {type: integer}
    ChannelInput:
      type: object
      required: [name]
      properties:
        name: {$ref: "#/components/schemas/Identifier"}
        messageStoragePolicy: {enum: [0, 1, null], description: "0 (default): APNs stores no broadcast for offline devices; 1: it keeps the most recent"}
    Channel:
      type: object
      required: [name, apnsChannelId, messageStoragePolicy]
      properties:
        name: {type: string}
        apnsChannelId: {type: string, description: "the id APNs assigned (base64); apps subscribe to it, and a start's inputPushChannel names it"}
        messageStoragePolicy: {enum: [0, 1]}
        onApns: {type: boolean, description: "with refresh=true: APNs still knows the channel"}
        apnsMessageStoragePolicy: {type: integer, description: "with refresh=true, for one channel APNs knows: the policy it holds"}
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
                properties: {error: {properties: {reason: {enum: [invalidId, invalidField, missingField, invalidTimeZone, invalidToken, invalidLocale, invalidBackgroundMode, invalidPlatform, addressNotForPlatform, invalidFcmToken, invalidWebPushEndpoint, webPushHostNotAllowed, invalidWebPushKeys, invalidAttributesType]}}}}
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
  /v1/apps/{app}/devices/{device}/activities:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    get:
      summary: The device's running Live Activities with their update tokens, by activity id
      responses:
        "200":
          description: the activities
          content:
            application/json:
              schema: {type: object, required: [activities], properties: {activities: {type: array, items: {$ref: "#/components/schemas/Activity"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/activities/{activity}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}, {$ref: "#/components/parameters/activity"}]
    put:
      summary: Register or replace a running Live Activity's update token, as the app reports it from pushTokenUpdates (ios devices)
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/ActivityInput"}}}
      responses:
        "200": {description: replaced, content: {application/json: {schema: {$ref: "#/components/schemas/Activity"}}}}
        "201": {description: registered, content: {application/json: {schema: {$ref: "#/components/schemas/Activity"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/DeviceNotFound"}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: "refused; liveActivityNotForPlatform: the device is not ios"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidId, invalidField, missingField, liveActivityNotForPlatform, invalidToken, invalidAttributesType]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: One running Live Activity's update token
      responses:
        "200": {description: the activity, content: {application/json: {schema: {$ref: "#/components/schemas/Activity"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ActivityNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Forget a Live Activity's update token (the activity ended)
      responses:
        "204": {description: forgotten}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ActivityNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/devices/{device}/notifications:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/device"}]
    post:
      summary: Schedule a notification or a Live Activity push (the same id replaces it)
      description: >
        409 notificationLimitReached when the device already has 128 pending and the app's
        overflow is reject; 422 payloadTooLarge when its push would exceed 4096 bytes. A
        liveActivity is for ios devices (422 liveActivityNotForPlatform), an app whose APNs auth
        is a token (422 liveActivityNeedsTokenAuth), and for an update or end an activity the
        device registered (422 unknownActivity).
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
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, invalidTimeZone, invalidFireDate, offsetWithTimeZone, timeZoneRequired, fireDateInPast, invalidRepeat, missingAlert, invalidBadge, invalidSound, invalidData, invalidPayload, payloadTooLarge, alertOrLiveActivity, invalidLiveActivity, missingAttributes, missingContentState, missingActivity, activityNotForStart, invalidDate, unknownActivity, liveActivityNeedsTokenAuth, liveActivityNotForPlatform]}}}}
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
      description: "An alert only: a liveActivity is refused (422 invalidLiveActivity, or the reason it is invalid for); send one now with POST /v1/push."
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
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, missingAlert, invalidBadge, invalidSound, invalidData, invalidPayload, payloadTooLarge, alertOrLiveActivity, invalidLiveActivity, missingAttributes, missingContentState, missingActivity, activityNotForStart, invalidDate, liveActivityNotForPlatform]}}}}
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
  /v1/apps/{app}/channels:
    parameters: [{$ref: "#/components/parameters/app"}]
    post:
      summary: Create an iOS 18 broadcast channel on APNs, kept by the app's name for it
      description: >
        The app needs APNs settings with token auth (422 pushNotConfigured,
        liveActivityNeedsTokenAuth); channels are created on APNs's channel management API for
        push.channelsEnvironment (default: push.environment). APNs allows 10000 channels per app
        and environment (422 tooManyChannels).
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/ChannelInput"}}}
      responses:
        "201": {description: created, content: {application/json: {schema: {$ref: "#/components/schemas/Channel"}}}}
        "400": {$ref: "#/components/responses/BadBody"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "409":
          description: "channelExists: the app already has a channel of that name"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [channelExists]}}}}
        "413": {$ref: "#/components/responses/BodyTooLarge"}
        "422":
          description: refused
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, invalidMessageStoragePolicy, pushNotConfigured, liveActivityNeedsTokenAuth, tooManyChannels]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
        "502": {$ref: "#/components/responses/APNsChannelsFailed"}
    get:
      summary: The app's broadcast channels; with refresh=true each says whether APNs still knows it
      parameters: [{$ref: "#/components/parameters/refresh"}]
      responses:
        "200":
          description: the channels (with refresh=true, each with onApns)
          content:
            application/json:
              schema: {type: object, required: [channels], properties: {channels: {type: array, items: {$ref: "#/components/schemas/Channel"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/AppNotFound"}
        "422": {$ref: "#/components/responses/ChannelsUnavailable"}
        "429": {$ref: "#/components/responses/RateLimited"}
        "502": {$ref: "#/components/responses/APNsChannelsFailed"}
  /v1/apps/{app}/channels/{name}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/channel"}]
    get:
      summary: One broadcast channel; with refresh=true, what APNs holds of it
      parameters: [{$ref: "#/components/parameters/refresh"}]
      responses:
        "200": {description: "the channel (with refresh=true, onApns and, when APNs knows it, apnsMessageStoragePolicy)", content: {application/json: {schema: {$ref: "#/components/schemas/Channel"}}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "422": {$ref: "#/components/responses/ChannelsUnavailable"}
        "429": {$ref: "#/components/responses/RateLimited"}
        "502": {$ref: "#/components/responses/APNsChannelsFailed"}
    delete:
      summary: Delete a broadcast channel on APNs (one APNs no longer knows counts as deleted), then here with its scheduled broadcasts
      responses:
        "204": {description: deleted}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "422": {$ref: "#/components/responses/ChannelsUnavailable"}
        "429": {$ref: "#/components/responses/RateLimited"}
        "502": {$ref: "#/components/responses/APNsChannelsFailed"}
  /v1/apps/{app}/channels/{name}/notifications:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/channel"}]
    post:
      summary: Schedule a broadcast on the channel, a Live Activity update or end (the same id replaces it)
      description: >
        As a device's notifications: 409 notificationLimitReached when the channel already has
        128 pending and the app's overflow is reject; 422 payloadTooLarge when the push would
        exceed 4096 bytes. Each occurrence goes to APNs as one broadcast on the channel.
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/BroadcastInput"}}}
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
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "409":
          description: the channel's 128 pending broadcasts are reached
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
                properties: {error: {properties: {reason: {enum: [invalidField, missingField, invalidId, invalidTimeZone, invalidFireDate, offsetWithTimeZone, timeZoneRequired, fireDateInPast, invalidRepeat, missingLiveActivity, alertOrLiveActivity, invalidLiveActivity, missingContentState, invalidDate, invalidData, invalidPayload, payloadTooLarge, liveActivityNeedsTokenAuth]}}}}
        "429": {$ref: "#/components/responses/RateLimited"}
    get:
      summary: The channel's pending broadcasts sorted by next fire date
      responses:
        "200":
          description: the pending broadcasts
          content:
            application/json:
              schema:
                type: object
                required: [notifications]
                properties: {notifications: {type: array, items: {$ref: "#/components/schemas/Notification"}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Cancel all of the channel's broadcasts
      responses:
        "200":
          description: how many were cancelled
          content:
            application/json:
              schema: {type: object, required: [cancelled], properties: {cancelled: {type: integer}}}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/channels/{name}/notifications/{id}:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/channel"}, {$ref: "#/components/parameters/notification"}]
    get:
      summary: One broadcast, with a preview of its next occurrences
      parameters:
        - {name: occurrences, in: query, description: how many next fire dates to list, schema: {type: integer, minimum: 0, maximum: 100}}
      responses:
        "200": {description: the broadcast, content: {application/json: {schema: {$ref: "#/components/schemas/Notification"}}}}
        "400":
          description: "invalidOccurrences: occurrences is not an integer from 0 to 100; invalidPath"
          content:
            application/json:
              schema:
                allOf: [{$ref: "#/components/schemas/Error"}]
                properties: {error: {properties: {reason: {enum: [invalidOccurrences, invalidPath]}}}}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotificationNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
    delete:
      summary: Cancel one broadcast
      responses:
        "204": {description: cancelled}
        "400": {$ref: "#/components/responses/BadPath"}
        "401": {$ref: "#/components/responses/Unauthorized"}
        "403": {$ref: "#/components/responses/Forbidden"}
        "404": {$ref: "#/components/responses/ChannelNotificationNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/apps/{app}/channels/{name}/deliveries:
    parameters: [{$ref: "#/components/parameters/app"}, {$ref: "#/components/parameters/channel"}]
    get:
      summary: The channel's broadcast deliveries, newest first
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
        "404": {$ref: "#/components/responses/ChannelNotFound"}
        "429": {$ref: "#/components/responses/RateLimited"}
  /v1/push:
    post:
      summary: Send pushes, with a result per token, device or channel
      description: >
        Each entry is judged on its own: a bad entry gets error rows in results (still 200) and
        the good ones go out. App keys may name only their own app (403 rows otherwise). An entry
        with liveActivity is a Live Activity push sent now (aps.timestamp is the moment it is
        sent): to tokens, devices, or as a broadcast to a channel (one row, with channel).
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
          description: one result row per token or device, or one for a channel
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
