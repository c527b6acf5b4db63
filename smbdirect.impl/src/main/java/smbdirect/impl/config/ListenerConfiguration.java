package smbdirect.impl.config;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * One configured SMB Direct listening endpoint, factory PID {@value #FACTORY_PID}: the component
 * property type of the OSGi listener component.
 */
@ObjectClassDefinition(
        name = "SMB Direct Listener",
        description = "A listening SMB Direct endpoint. Accepted, negotiated connections go to the AcceptHandler"
                + " service selected by acceptHandler.target; while none is present the endpoint is not bound"
                + " (state WAITING), so peers are refused by the RDMA connection manager. The endpoint follows"
                + " the selected RDMA provider: when it changes or leaves, the endpoint re-opens on the next one"
                + " (connections already accepted stay on their provider).")
public @interface ListenerConfiguration {

    /** The factory PID (also the name of the OSGi listener component). */
    String FACTORY_PID = "smbdirect.listener";


    @AttributeDefinition(name = "Name", description = "A name for logs and the runtime DTO.")
    String name() default "smb";

    @AttributeDefinition(name = "Bind address",
            description = "Local IP address to listen on (0.0.0.0 = every address the provider serves).")
    String bindAddress() default "0.0.0.0";

    @AttributeDefinition(name = "Port", min = "0", max = "65535",
            description = "Port: 445 for InfiniBand and RoCE, 5445 for iWARP; 0 picks a free port (kept when the"
                    + " endpoint moves to another provider).")
    int port() default 445;

    @AttributeDefinition(name = "RDMA provider filter", required = false,
            description = "Optional LDAP filter over RdmaProvider service properties, e.g. (smbdirect.provider=verbs);"
                    + " empty = the provider the transport selects (its provider.target).")
    String provider_target() default "";

    @AttributeDefinition(name = "Accept handler filter",
            description = "LDAP filter selecting the AcceptHandler service that receives the accepted connections;"
                    + " the best ranked match is used.")
    String acceptHandler_target() default "(objectClass=smbdirect.api.AcceptHandler)";

    @AttributeDefinition(name = "Name hint", description = "How the Web Console names these configurations.")
    String webconsole_configurationFactory_nameHint() default "{name} {bindAddress}:{port}";
}
