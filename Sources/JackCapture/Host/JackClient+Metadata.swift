import CJack

/// A metadata value as JACK stores it: text, with a MIME type or URI saying how to read it.
package struct JackProperty: Equatable, Sendable {
    package var value: String
    /// nil or empty means UTF-8 text (text/plain).
    package var type: String?

    package init(value: String, type: String?) {
        self.value = value
        self.type = type
    }
}

/// JACK metadata (<jack/metadata.h>): key-value properties on ports and clients, identified by
/// their UUIDs, that patchbays and DAWs show (a port's pretty name, its display order).
///
/// What jack2 (1.9.21, measured) does with them: one Berkeley DB per user (/dev/shm/jack_db-UID)
/// holds the properties of every server of that user, and port UUIDs are port slot numbers, so
/// ports of two servers can share a UUID and so its properties. A port's properties go when it is
/// unregistered (or its client closes). A process opens the database with its first client; when
/// any server of the user stops, jack2 deletes the database's files, and a process that opened it
/// before keeps reading and writing the deleted copy, unseen by other processes, until its last
/// client closes. With one server, as in a studio, none of this shows.
extension JackClient {
    /// The metadata key for the name a user interface shows instead of the port's (JACK_METADATA_PRETTY_NAME).
    package static var prettyNameKey: String { String(cString: jcap_metadata_pretty_name()) }

    /// The metadata key for a port's display rank (JACK_METADATA_ORDER).
    package static var orderKey: String { String(cString: jcap_metadata_order()) }

    /// The type of integer metadata values (XML Schema's integer).
    package static let integerType = "http://www.w3.org/2001/XMLSchema#integer"

    /// The port's UUID (jack_port_uuid): the subject its metadata is stored under.
    package func uuid(of port: OpaquePointer) -> UInt64 {
        jack_port_uuid(port)
    }

    /// Sets a property (jack_set_property); the server tells every client that watches properties.
    ///
    /// - Parameters:
    ///   - type: a MIME type or URI; nil for plain text.
    package func setProperty(_ value: String, forKey key: String, type: String? = nil,
                            on subject: UInt64) throws(JackError) {
        guard whileOpen(-1, { jack_set_property($0, subject, key, value, type) }) == 0 else {
            throw .propertyNotSet(key: key, subject: subject)
        }
    }

    /// A property's value and type, or nil when the subject has none under `key` (jack_get_property;
    /// both strings are freed with jack_free).
    package func property(forKey key: String, of subject: UInt64) -> JackProperty? {
        var value: UnsafeMutablePointer<CChar>?
        var type: UnsafeMutablePointer<CChar>?
        let result = jack_get_property(subject, key, &value, &type)
        defer {
            if let value { jack_free(value) }
            if let type { jack_free(type) }
        }
        guard result == 0, let value else { return nil }
        return JackProperty(value: String(cString: value), type: type.map { String(cString: $0) })
    }

    /// Removes a property (jack_remove_property). A property that is not there is an error: JACK
    /// cannot tell that apart from a failure.
    package func removeProperty(forKey key: String, of subject: UInt64) throws(JackError) {
        guard whileOpen(-1, { jack_remove_property($0, subject, key) }) == 0 else {
            throw .propertyNotRemoved(key: key, subject: subject)
        }
    }

    /// Removes the port's pretty name and display rank (what a session sets), each by its key,
    /// where the port has it (a session sets a pretty name only where it differs from the port's
    /// name; looking is a read of the local database, removing a request to the server).
    /// Not jack_remove_properties: jack2 1.9.21 walks the whole metadata database for each
    /// subject, so removing 1024 ports' properties that way took most of a second of CPU.
    package func removeDisplayMetadata(ofPort port: OpaquePointer) {
        let subject = uuid(of: port)
        for key in [JackClient.prettyNameKey, JackClient.orderKey] where property(forKey: key, of: subject) != nil {
            try? removeProperty(forKey: key, of: subject)
        }
    }

    /// Sets the name patchbays show for the port (JACK_METADATA_PRETTY_NAME, text/plain), such as
    /// "Kick In" for `system:capture_1`.
    package func setPrettyName(_ name: String, ofPort port: OpaquePointer) throws(JackError) {
        try setProperty(name, forKey: JackClient.prettyNameKey, type: "text/plain", on: uuid(of: port))
    }

    /// The port's pretty name (JACK_METADATA_PRETTY_NAME), or nil when it has none.
    package func prettyName(ofPort port: OpaquePointer) -> String? {
        property(forKey: JackClient.prettyNameKey, of: uuid(of: port))?.value
    }

    /// Sets the port's display rank (JACK_METADATA_ORDER, an XML Schema integer): user interfaces
    /// sort ports by it, lowest first.
    package func setOrder(_ order: Int, ofPort port: OpaquePointer) throws(JackError) {
        try setProperty(String(order), forKey: JackClient.orderKey, type: JackClient.integerType, on: uuid(of: port))
    }

    /// The port's display rank (JACK_METADATA_ORDER), or nil when it has none or it is not an integer.
    package func order(ofPort port: OpaquePointer) -> Int? {
        property(forKey: JackClient.orderKey, of: uuid(of: port)).flatMap { Int($0.value) }
    }
}
