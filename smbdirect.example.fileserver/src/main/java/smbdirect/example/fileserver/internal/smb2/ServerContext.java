package smbdirect.example.fileserver.internal.smb2;

import java.security.SecureRandom;
import java.util.concurrent.Executor;

import smbdirect.example.fileserver.internal.auth.NtlmAuthenticator;
import smbdirect.example.fileserver.internal.share.Share;

/**
 * What every connection of one server shares: the share, the logon, the ServerGuid, and the
 * worker pool requests run on. Immutable, thread-safe.
 *
 * @param share the served directory
 * @param authenticator the logon
 * @param serverGuid ServerGuid, stable for the server's life (16 bytes)
 * @param workers runs requests and file I/O, never the transport's callback threads
 * @param maxBuffersPerConnection the most registered I/O buffers one connection holds
 */
public record ServerContext(Share share, NtlmAuthenticator authenticator, byte[] serverGuid,
        Executor workers, int maxBuffersPerConnection) {

    public static ServerContext create(Share share, NtlmAuthenticator authenticator, Executor workers) {
        byte[] guid = new byte[16];
        new SecureRandom().nextBytes(guid);
        return new ServerContext(share, authenticator, guid, workers, 8);
    }
}
