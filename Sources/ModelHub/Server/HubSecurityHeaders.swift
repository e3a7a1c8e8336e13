import HTTPTypes

extension HTTPFields {
    /// The headers every hub answer carries, whatever produced it (a route, an error, the download
    /// fast path, the HTTP parser's refusal). The hub is an API that apps and browsers reach
    /// directly once its URL ships in an app: `nosniff` stops a browser from reading a model file
    /// or a JSON body that echoes a request as HTML or script, and the policy lets nothing an
    /// answer might hold run, load or be framed.
    static var hubSecurity: HTTPFields {
        [
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; frame-ancestors 'none'",
        ]
    }

    /// Adds ``hubSecurity``'s headers (replacing any of the same name).
    mutating func addHubSecurityHeaders() {
        for field in HTTPFields.hubSecurity { self[field.name] = field.value }
    }
}
