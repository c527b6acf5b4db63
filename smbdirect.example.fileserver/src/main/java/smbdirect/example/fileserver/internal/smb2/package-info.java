/**
 * The SMB2 protocol ([MS-SMB2]): header and command codecs, connection, session and tree state,
 * dispatch, RDMA channels.
 *
 * <h2>How a request travels</h2>
 * <ol>
 * <li>{@link smbdirect.example.fileserver.internal.smb2.Smb2Connection#onMessage} (the transport's
 * callback thread; the payload is valid only there) copies the message, decodes each header of the
 * compound chain ({@link smbdirect.example.fileserver.internal.smb2.Smb2Header}, 2.2.1), checks the
 * NEGOTIATE order and consumes the MessageIds from the
 * {@link smbdirect.example.fileserver.internal.smb2.CreditWindow} (3.3.5.2.3), all in arrival order.
 * A violation closes the connection with a reason naming the field and value. An SMB1 NEGOTIATE
 * goes to {@code Negotiate.smb1}. CANCEL is dropped (nothing is ever pending).</li>
 * <li>A worker of the server's pool runs {@code Dispatcher.process}: per request the body's
 * StructureSize, the session and tree, the signature of a signed request
 * ({@code RequestSignature}), the CreditCharge ({@code Credits}), then the command class
 * ({@code Negotiate}, {@code SessionCommands}, {@code TreeCommands}, {@code CreateCommand},
 * {@code FileCommands}, {@code ReadCommand}, {@code WriteCommand}, {@code IoctlCommand}). Each
 * returns a future of its {@link smbdirect.example.fileserver.internal.smb2.Smb2Response}; a thrown
 * {@link smbdirect.example.fileserver.internal.smb2.SmbStatusException} becomes the error response
 * (2.2.2) with its status, any other exception STATUS_INTERNAL_ERROR, logged.</li>
 * <li>READ and WRITE through an RDMA channel continue asynchronously: a registered buffer from the
 * connection's {@code RdmaBufferPool}, the file read on a worker and RDMA-Written (READ), or
 * RDMA-Read and then written to the file on a worker (WRITE); the transport's completion completes
 * the future. An RDMA failure means the transport closed the connection: no response. A related
 * request of a compound finds the previous request's session, tree and FileId in its
 * {@code RequestContext}.</li>
 * <li>When every request of the message is answered, {@code Dispatcher} chains the responses 8-byte
 * aligned into one message, grants credits in each header, signs where asked (the final
 * SESSION_SETUP of 3.1.1, and the response to a signed request), feeds the pre-authentication hash
 * ({@code Smb2Response.onEncoded}), and sends it, with invalidate when the READ or WRITE asked for
 * SMB2_CHANNEL_RDMA_V1_INVALIDATE.</li>
 * <li>When the connection ends, {@code onDisconnected} releases the registered buffers and closes
 * every open left.</li>
 * </ol>
 *
 * <h2>State</h2>
 * {@code Smb2Connection} (one per SMB Direct connection: negotiated dialect, pre-auth hash,
 * {@code CreditWindow}, sessions, {@code OpenTable}, {@code RdmaBufferPool}) holds
 * {@code Session}s (logon, signing key, {@code TreeConnect}s); {@code Open} ties a share's
 * {@code OpenFile} to its FileId, session and tree. {@code ServerContext} is what all connections
 * of a server share.
 */
package smbdirect.example.fileserver.internal.smb2;
