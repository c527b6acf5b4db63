package smbdirect.example.fileserver.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Metatype of the file server (configuration PID {@code smbdirect.example.fileserver}): the
 * attributes of {@link smbdirect.example.fileserver.FileServerSettings}, plus the provider a
 * server listens on and the target of its transport reference.
 */
@ObjectClassDefinition(name = "SMB Direct reference file server",
        description = "Serves one directory as one SMB2 share (dialects 3.0.2 and 3.1.1) over SMB Direct, for Linux "
                + "cifs (mount -t cifs -o rdma). No signing or encryption: use it on an isolated storage network. "
                + "Nothing is served until this configuration exists.")
public @interface FileServerConfiguration {

    @AttributeDefinition(name = "Share name",
            description = "The share's name in \\\\SERVER\\NAME (compared without regard to case): 1 to 80 characters, "
                    + "none of \\ / : * ? \" < > | or control characters")
    String shareName() default "share";

    @AttributeDefinition(name = "Directory",
            description = "Absolute path of the directory served; every path a client names stays inside it. It must "
                    + "exist, and be writable unless the share is read-only")
    String directory();

    @AttributeDefinition(name = "Listen address",
            description = "HOST:PORT or [IPV6]:PORT where the server listens for SMB Direct connections: port 5445 for "
                    + "iWARP clients (Linux cifs over siw), 445 for InfiniBand and RoCE clients; 0.0.0.0 for every "
                    + "address. Over the software iWARP provider the address must be one its listenAddresses allow")
    String listenAddress() default "0.0.0.0:5445";

    @AttributeDefinition(name = "Provider",
            description = "The RDMA provider to listen on, by its smbdirect.provider name (iwarp, verbs, mock); empty: "
                    + "the provider the transport selects, and the listener follows the selection")
    String provider() default "";

    @AttributeDefinition(name = "Read-only", description = "Clients may only read (writes are refused with "
            + "STATUS_ACCESS_DENIED)")
    boolean readOnly() default false;

    @AttributeDefinition(name = "User",
            description = "The one account's user name for NTLMv2 logon; empty: no account (then guest must be on). "
                    + "There is no default account")
    String user() default "";

    @AttributeDefinition(name = "Password", description = "The account's password; required with a user name",
            type = AttributeType.PASSWORD)
    String password() default "";

    @AttributeDefinition(name = "Guest", description = "A client may log on as guest (mount -o guest), without an "
            + "account")
    boolean guest() default false;

    @AttributeDefinition(name = "Transport target",
            description = "LDAP filter selecting the SmbDirectTransport service the server uses (the runtime has one); "
                    + "to choose the RDMA provider, set Provider")
    String transport_target() default "(objectClass=smbdirect.api.SmbDirectTransport)";
}
