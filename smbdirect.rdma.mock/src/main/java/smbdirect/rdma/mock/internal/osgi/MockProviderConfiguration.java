package smbdirect.rdma.mock.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import smbdirect.api.rdma.TransportType;

/**
 * Configuration of a mock RDMA provider (factory PID {@code smbdirect.rdma.mock}). The first
 * three attributes are also the service properties of the provider.
 */
@ObjectClassDefinition(name = "SMB Direct mock RDMA provider",
        description = "An in-JVM RDMA device with reliable-connected semantics, each on a fabric of its own")
public @interface MockProviderConfiguration {

    @AttributeDefinition(name = "Provider name", description = "Value of the smbdirect.provider service property")
    String smbdirect_provider() default "mock";

    @AttributeDefinition(name = "Service ranking", description = "Lower than the verbs provider's by default")
    int service_ranking() default -100;

    @AttributeDefinition(name = "Transport type", description = "The RDMA transport the device simulates")
    TransportType smbdirect_provider_transport() default TransportType.INFINIBAND;

    @AttributeDefinition(name = "Max send work requests", min = "1")
    int maxSendWorkRequests() default 4096;

    @AttributeDefinition(name = "Max receive work requests", min = "1")
    int maxReceiveWorkRequests() default 4096;

    @AttributeDefinition(name = "Max scatter/gather entries", min = "1")
    int maxSge() default 16;

    @AttributeDefinition(name = "Max inline data", min = "0")
    int maxInlineData() default 256;

    @AttributeDefinition(name = "Max message size", min = "1")
    int maxMessageSize() default 1073741824;

    @AttributeDefinition(name = "Max inbound read depth (IRD)", min = "1")
    int maxInboundReadDepth() default 16;

    @AttributeDefinition(name = "Max outbound read depth (ORD)", min = "1")
    int maxOutboundReadDepth() default 16;

    @AttributeDefinition(name = "Max region size", min = "1")
    long maxRegionSize() default 2147483647L;

    @AttributeDefinition(name = "Send with Invalidate", description = "Whether the device supports Send with Invalidate")
    boolean sendWithInvalidate() default true;

    @AttributeDefinition(name = "Completion threads", min = "1")
    int completionThreads() default 2;
}
