package smbdirect.example.fileserver;

import java.io.IOException;
import java.net.InetSocketAddress;

import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;

/**
 * A running file server: listens on {@link FileServerSettings#listenAddress()} of one transport
 * and serves {@link FileServerSettings#directory()} as one share to every SMB2 client that
 * connects over SMB Direct. Thread-safe. Closing it stops listening, closes every connection and
 * releases every registration and file it holds.
 */
public final class FileServer implements AutoCloseable {

    private FileServer() {
    }

    /**
     * Starts serving.
     *
     * @throws IOException the directory is not a readable directory
     * @throws SmbDirectException the transport cannot listen on the address
     */
    public static FileServer start(SmbDirectTransport transport, FileServerSettings settings)
            throws IOException, SmbDirectException {
        throw new UnsupportedOperationException("not yet");
    }

    /** The address the server listens on (the port chosen when the settings asked for port 0). */
    public InetSocketAddress listenAddress() {
        throw new UnsupportedOperationException("not yet");
    }

    public FileServerSettings settings() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Connections open now. */
    public int connections() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Stops listening, closes every connection, releases every registration and open file. Idempotent. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not yet");
    }
}
