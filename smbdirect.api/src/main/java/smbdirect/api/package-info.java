/**
 * The SMB Direct transport as the upper layer (an SMB2/3 server or client) sees it.
 *
 * <p>Entry point: the {@link smbdirect.api.SmbDirectTransport} service. It opens listeners
 * ([MS-SMBD] 3.1.7.2) and connects to peers (3.1.4.1); each negotiated connection is an
 * {@link smbdirect.api.SmbDirectConnection} that sends upper-layer messages (3.1.4.2), hands
 * complete reassembled messages to a {@link smbdirect.api.ConnectionHandler} (3.1.5.8), registers
 * buffers for remote access (3.1.4.3, 3.1.4.4), moves data with RDMA Read and Write (3.1.4.5,
 * 3.1.4.6) and reports its parameters (3.1.4.7).
 *
 * <h2>Threading</h2>
 * Every method of the provider types in this package may be called from any thread. Callbacks of
 * one connection ({@link smbdirect.api.ConnectionHandler}, {@link smbdirect.api.SendCompletion},
 * {@link smbdirect.api.RdmaCompletionHandler}) are never invoked concurrently with each other; they run
 * on the connection's serial context, which may be a provider completion thread, so a callback
 * must not block. Calls into the connection from inside a callback are allowed. A callback that
 * throws ends its connection with {@link smbdirect.api.CloseReason.Kind#HANDLER_FAILED} and nothing
 * else (see {@link smbdirect.api.ConnectionHandler}).
 *
 * <h2>Buffer ownership</h2>
 * A buffer handed to the transport (a message to send, a registered buffer) belongs to the
 * transport until the matching completion has been called; the caller must not modify it before.
 * A buffer handed to the upper layer in a callback is valid only for the duration of that callback.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package smbdirect.api;
