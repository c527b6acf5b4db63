package smbdirect.api;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.dto.ListenerDTO;

/**
 * A listening endpoint opened by {@link SmbDirectTransport#listen}. Thread-safe.
 */
@ProviderType
public interface SmbDirectListener {

    /** The bound local address (with the actual port when 0 was requested). */
    InetSocketAddress localAddress();

    /** The name of the RDMA provider it listens on. */
    String providerName();

    /** Whether it still accepts connections. */
    boolean isOpen();

    /** A snapshot of its state and counters. */
    ListenerDTO getListenerDTO();

    /**
     * Stops accepting connections. Connections already accepted are not affected. Idempotent.
     *
     * @return completes when the provider released the listening endpoint
     */
    CompletionStage<Void> close();
}
