package smbdirect.impl.control;

import java.util.concurrent.CompletionStage;

import smbdirect.api.CloseReason;

/**
 * Bundle-internal service of the transport component through which an operator closes any live
 * connection by id, whoever owns it (Gogo {@code smbd:close}, the Web Console page). The upper
 * layer owning the connection is told through {@code ConnectionHandler.onDisconnected} with the
 * reason given. Thread-safe.
 */
public interface ConnectionControl {

    /**
     * Closes the live connection {@code id}. Connection ids are unique per RDMA provider; when
     * {@code provider} is {@code null} the id must be live on exactly one provider.
     *
     * @param provider the provider name the connection runs on, or {@code null} for any
     * @return completes when the connection is released, or {@code null} when no live connection
     *     has that id (on that provider)
     * @throws IllegalArgumentException when {@code provider} is {@code null} and the id is live on
     *     more than one provider (the message names them)
     */
    CompletionStage<Void> closeConnection(long id, String provider, CloseReason reason);
}
