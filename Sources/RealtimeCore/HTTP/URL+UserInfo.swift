#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension URL {
    /// `Basic <base64(user:password)>` from the URL's userinfo (RFC 7617), percent-decoded,
    /// with an empty password when there is none: what libcurl sends for
    /// `http://user:pw@host/`. Nil without a user. A secret: never logged.
    package var basicAuthorization: String? {
        guard let user = user(percentEncoded: false) else { return nil }
        let password = password(percentEncoded: false) ?? ""
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The URL without its userinfo: what events and errors may show.
    package var removingUserInfo: URL {
        guard user(percentEncoded: true) != nil || password(percentEncoded: true) != nil,
              var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return self }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.url ?? self
    }
}
