package smbdirect.impl.transport;

import java.util.HashMap;
import java.util.Map;

import org.osgi.framework.Constants;

import smbdirect.api.CloseReason;
import smbdirect.api.rdma.RdmaProvider;

/**
 * A provider of a {@link MultiProviderTransport} and its engine, with what the selection reads of
 * its service properties (name, ranking, service id). Mutable fields are guarded by the transport's
 * lock.
 */
final class ProviderEntry {
    final RdmaProvider provider;
    final ProviderEngine engine;
    Map<String, Object> properties = Map.of();
    String name;
    String transportType;
    int ranking;
    long serviceId;
    /** Set when the engine is shut down because the provider left or the transport stops. */
    volatile CloseReason retiring;

    ProviderEntry(RdmaProvider provider, ProviderEngine engine) {
        this.provider = provider;
        this.engine = engine;
    }

    void update(Map<String, ?> props, long fallbackServiceId) {
        Map<String, Object> copy = new HashMap<>();
        if (props != null) {
            props.forEach((k, v) -> {
                if (k != null && v != null) {
                    copy.put(k, v);
                }
            });
        }
        String n = copy.get(RdmaProvider.PROVIDER_NAME) instanceof String s ? s : describe(provider);
        copy.putIfAbsent(RdmaProvider.PROVIDER_NAME, n);
        properties = Map.copyOf(copy);
        name = n;
        Object r = copy.get(Constants.SERVICE_RANKING);
        ranking = r instanceof Integer i ? i : 0;
        Object id = copy.get(Constants.SERVICE_ID);
        serviceId = id instanceof Long l ? l : fallbackServiceId;
        String tt;
        try {
            tt = String.valueOf(provider.transportType());
        } catch (RuntimeException e) {
            tt = String.valueOf(copy.get(RdmaProvider.TRANSPORT_TYPE));
        }
        transportType = tt;
    }

    /** The provider's name, or what it says of itself when even that fails. */
    static String describe(RdmaProvider provider) {
        try {
            return provider.name();
        } catch (RuntimeException e) {
            return String.valueOf(provider);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
