package smbdirect.impl.osgi;

import java.net.InetSocketAddress;

import smbdirect.impl.transport.ProviderFilter;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.transport.RelocatingListener;

/**
 * Bundle-internal service of the transport component through which configured listeners
 * ({@code smbdirect.listener}) are opened. Thread-safe.
 */
public interface ListenerHost {

    /**
     * Opens a listener that follows the provider selection and waits for an accept handler.
     *
     * @param name the configured name (shown in the DTO and log)
     * @param providerFilter its own provider filter, or {@code null} to follow the transport's
     * @param whyWaiting why it waits until an accept handler is set (shown in the DTO from the start)
     */
    RelocatingListener openConfigured(String name, InetSocketAddress bindAddress, ProviderFilter providerFilter,
            String whyWaiting);

    /**
     * The configuration {@code key} (its PID) of a listener that has no endpoint is refused:
     * {@code shown} (state FAILED, the reason as detail) stands in the runtime DTO for it, so that
     * health and the status page name it; {@code null} removes it (the configuration was corrected
     * or deleted). The default shows nothing.
     */
    default void configurationRefused(String key, ListenerDTO shown) {
    }
}
