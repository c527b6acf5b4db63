package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.auth.Smb3Keys;

/**
 * Runs the requests of one message in order ([MS-SMB2] 3.3.5.2): checks each body's
 * StructureSize, its session and tree (3.3.5.2.9, 3.3.5.2.11), the signature of a signed request
 * (3.3.5.2.4, whose response is then signed too, 3.3.4.1.1) and its CreditCharge (3.3.5.2.5),
 * hands it to its command, and turns every failure into an error response. A related request of a
 * compound (3.3.5.2.7.2) acts in the previous request's session, tree and FileId. The responses
 * are chained 8-byte aligned into one message, granted credits, signed where the command asks, and
 * sent. Static, thread-safe.
 */
final class Dispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    @FunctionalInterface
    interface Command {
        CompletableFuture<Smb2Response> run(RequestContext rc) throws SmbStatusException;
    }

    private Dispatcher() {
    }

    private static Command command(int command) {
        return switch (command) {
            case Smb2.NEGOTIATE -> Negotiate::negotiate;
            case Smb2.SESSION_SETUP -> SessionCommands::sessionSetup;
            case Smb2.LOGOFF -> SessionCommands::logoff;
            case Smb2.TREE_CONNECT -> TreeCommands::treeConnect;
            case Smb2.TREE_DISCONNECT -> TreeCommands::treeDisconnect;
            case Smb2.CREATE -> CreateCommand::create;
            case Smb2.CLOSE -> FileCommands::close;
            case Smb2.FLUSH -> FileCommands::flush;
            case Smb2.QUERY_INFO -> FileCommands::queryInfo;
            case Smb2.SET_INFO -> FileCommands::setInfo;
            case Smb2.QUERY_DIRECTORY -> FileCommands::queryDirectory;
            case Smb2.READ -> ReadCommand::read;
            case Smb2.WRITE -> WriteCommand::write;
            case Smb2.IOCTL -> IoctlCommand::ioctl;
            case Smb2.ECHO -> rc -> RequestContext.done(Smb2Response.success(fixed(4)));
            case Smb2.OPLOCK_BREAK -> Dispatcher::oplockBreak;
            case Smb2.LOCK, Smb2.CHANGE_NOTIFY -> rc -> {
                throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "this server does not implement "
                        + Smb2.commandName(rc.request.command()));
            };
            default -> null;
        };
    }

    /** A fixed response body of {@code structureSize} with the StructureSize written. */
    static ByteBuffer fixed(int structureSize) {
        ByteBuffer b = Smb2Response.body(structureSize);
        b.putShort(0, (short) structureSize);
        return b;
    }

    /**
     * OPLOCK_BREAK acknowledgment (3.3.5.22): this server grants no oplock or lease, so there is no
     * break to acknowledge: STATUS_INVALID_OPLOCK_PROTOCOL for a known open, FILE_CLOSED otherwise.
     */
    private static CompletableFuture<Smb2Response> oplockBreak(RequestContext rc) throws SmbStatusException {
        if (rc.request.u16(0) == 24) {
            rc.open(8);
        }
        throw new SmbStatusException(NtStatus.INVALID_OPLOCK_PROTOCOL, "no oplock or lease is ever granted");
    }

    /** Runs {@code requests} (one message) and sends the response message. */
    static void process(Smb2Connection c, List<Smb2Request> requests) {
        int n = requests.size();
        RequestContext[] contexts = new RequestContext[n];
        Smb2Response[] responses = new Smb2Response[n];
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int i = 0; i < n; i++) {
            int index = i;
            chain = chain.thenComposeAsync(v -> {
                RequestContext rc = new RequestContext(c, requests.get(index));
                contexts[index] = rc;
                return runOne(rc, index == 0 ? null : contexts[index - 1], index == 0 ? null : responses[index - 1])
                        .thenApply(r -> invalidating(rc, r)).thenAccept(r -> responses[index] = r);
            }, index == 0 ? Runnable::run : c.server().workers());
        }
        chain.whenComplete((v, failure) -> {
            if (failure != null) {
                LOG.warn("{}: no response to {}: {}", c, requests.get(0), cause(failure).getMessage());
                return;
            }
            try {
                send(c, contexts, responses);
            } catch (RuntimeException e) {
                LOG.error("{}: the response to {} could not be built", c, requests.get(0), e);
                c.close("internal error building a response: " + e);
            }
        });
    }

    /**
     * A READ or WRITE that asked for SMB2_CHANNEL_RDMA_V1_INVALIDATE ([MS-SMB2] 2.2.19, 2.2.21) is
     * answered with a Send with Invalidate of its first buffer descriptor's token ([MS-SMBD] 3.1.4.2)
     * whatever its status, not only after a transfer: the client takes the registration as
     * invalidated once the response is in (Linux cifs then registers it afresh for its next I/O, and
     * its queue pair fails when the registration is still valid). A request whose channel info holds
     * no well-formed descriptor names no token, and its response goes as a plain Send.
     */
    static Smb2Response invalidating(RequestContext rc, Smb2Response r) {
        if (r == null || r == Smb2Response.NONE) {
            return r;
        }
        Smb2Request req = rc.request;
        int channelAt;
        int infoAt;
        if (req.command() == Smb2.READ) {
            channelAt = ReadCommand.CHANNEL;
            infoAt = ReadCommand.CHANNEL_INFO;
        } else if (req.command() == Smb2.WRITE) {
            channelAt = WriteCommand.CHANNEL;
            infoAt = WriteCommand.CHANNEL_INFO;
        } else {
            return r;
        }
        try {
            if (req.u32(channelAt) != Smb2.CHANNEL_RDMA_V1_INVALIDATE) {
                return r;
            }
            return r.withInvalidate(RdmaChannel.firstToken(req, infoAt));
        } catch (SmbStatusException e) {
            return r;
        }
    }

    private static CompletableFuture<Smb2Response> runOne(RequestContext rc, RequestContext previous,
            Smb2Response previousResponse) {
        Smb2Request req = rc.request;
        try {
            if (req.header().isRelated()) {
                if (previous == null) {
                    throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "the first request of a compound is related");
                }
                rc.sessionId = previous.sessionId;
                rc.treeId = previous.treeId;
                if (previous.fileId != null) {
                    rc.chainFileId = previous.fileId;
                } else if (previousResponse.status() != NtStatus.SUCCESS) {
                    rc.chainStatus = previousResponse.status();
                } else {
                    rc.chainFileId = previous.chainFileId;
                    rc.chainStatus = previous.chainStatus;
                }
            }
            if (req.command() != Smb2.NEGOTIATE && rc.connection.negotiated() == null) {
                rc.connection.close(Smb2.commandName(req.command()) + " after a NEGOTIATE that settled no dialect (3.3.5.2)");
                throw new ConnectionGoneException("no dialect negotiated", null);
            }
            Command command = command(req.command());
            if (command == null) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Command=" + req.command() + ": unknown");
            }
            int size = Smb2.requestStructureSize(req.command());
            req.checkStructureSize(req.command() == Smb2.OPLOCK_BREAK && req.u16(0) == 36 ? 36 : size);
            resolveSessionAndTree(rc);
            if ((req.header().flags() & Smb2.FLAGS_SIGNED) != 0) {
                rc.signingKey = RequestSignature.verify(rc);
            }
            Credits.checkCharge(req);
            LOG.debug("{}: {}", rc.connection, req);
            return command.run(rc).handle((r, failure) -> failure == null ? r : failed(rc, failure));
        } catch (SmbStatusException e) {
            return RequestContext.done(refused(rc, e));
        } catch (RuntimeException e) {
            return RequestContext.done(failed(rc, e));
        }
    }

    private static Smb2Response failed(RequestContext rc, Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof SmbStatusException e) {
            return refused(rc, e);
        }
        if (cause instanceof ConnectionGoneException e) {
            throw e;
        }
        LOG.warn("{}: {} failed", rc.connection, rc.request, cause);
        return Smb2Response.error(NtStatus.INTERNAL_ERROR);
    }

    /** What failed: the cause a completion stage wrapped the failure in a CompletionException around. */
    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static Smb2Response refused(RequestContext rc, SmbStatusException e) {
        if (e.status() == NtStatus.INVALID_PARAMETER) {
            LOG.info("{}: {}: {}", rc.connection, rc.request, e.toString());
        } else {
            LOG.debug("{}: {}: {}", rc.connection, rc.request, e.toString());
        }
        return Smb2Response.error(e.status());
    }

    /** The session (3.3.5.2.9) and tree connect (3.3.5.2.11) a request acts in. */
    private static void resolveSessionAndTree(RequestContext rc) throws SmbStatusException {
        int command = rc.request.command();
        if (command == Smb2.NEGOTIATE || command == Smb2.SESSION_SETUP || command == Smb2.ECHO) {
            return;
        }
        Session s = rc.connection.session(rc.sessionId);
        if (s == null || s.state() != Session.State.VALID) {
            throw new SmbStatusException(NtStatus.USER_SESSION_DELETED,
                    "SessionId=0x" + Long.toHexString(rc.sessionId) + ": no such session logged on");
        }
        rc.session = s;
        if (command == Smb2.LOGOFF || command == Smb2.TREE_CONNECT) {
            return;
        }
        TreeConnect t = s.tree(rc.treeId);
        if (t == null) {
            throw new SmbStatusException(NtStatus.NETWORK_NAME_DELETED, "TreeId=0x" + Integer.toHexString(rc.treeId)
                    + ": no such tree connect in the session");
        }
        rc.tree = t;
    }

    /** Chains the responses into one message (3.3.5.2.7), grants credits, signs, sends. */
    private static void send(Smb2Connection c, RequestContext[] contexts, Smb2Response[] responses) {
        int last = -1;
        int total = 0;
        for (int i = 0; i < responses.length; i++) {
            if (responses[i] != Smb2Response.NONE) {
                total = align8(total) + Smb2.HEADER_SIZE + responses[i].body().limit();
                last = i;
            }
        }
        if (last < 0) {
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        boolean invalidate = false;
        int token = 0;
        for (int i = 0; i <= last; i++) {
            Smb2Response r = responses[i];
            if (r == Smb2Response.NONE) {
                continue;
            }
            int start = out.position();
            int length = Smb2.HEADER_SIZE + r.body().limit();
            int next = i == last ? 0 : align8(length);
            Smb2Header req = contexts[i].request.header();
            int flags = Smb2.FLAGS_SERVER_TO_REDIR | (req.flags() & Smb2.FLAGS_RELATED_OPERATIONS);
            new Smb2Header(req.creditCharge(), r.status(), req.command(), c.credits().grant(req.credits()), flags, next,
                    req.messageId(), req.processId(), contexts[i].treeId, 0, contexts[i].sessionId).encode(out);
            out.put(r.body().duplicate().position(0));
            out.position(start + (next == 0 ? length : next));
            ByteBuffer own = out.duplicate().position(start).limit(start + (next == 0 ? length : next)).slice()
                    .order(ByteOrder.LITTLE_ENDIAN);
            byte[] key = r.signingKey() != null ? r.signingKey() : contexts[i].signingKey;
            if (key != null) {
                Smb3Keys.sign(key, own.duplicate().order(ByteOrder.LITTLE_ENDIAN));
            }
            if (r.onEncoded() != null) {
                r.onEncoded().accept(own.duplicate().limit(length).order(ByteOrder.LITTLE_ENDIAN));
            }
            if (r.invalidate() && !invalidate) {
                invalidate = true;
                token = r.invalidateToken();
            }
            LOG.debug("{}: {} -> {}", c, req, NtStatus.name(r.status()));
        }
        out.flip();
        c.send(out, invalidate, token);
    }

    static int align8(int n) {
        return (n + 7) & ~7;
    }
}
