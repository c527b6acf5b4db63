package smbdirect.ops.monitor;

import java.util.function.Supplier;

import smbdirect.api.dto.TransportDTO;

/** A monitor sampled by hand, for tests in other packages. */
public final class TransportMonitorAccess {

    private final TransportMonitor monitor;

    public TransportMonitorAccess(Supplier<TransportDTO> source) {
        monitor = new TransportMonitor(source);
    }

    public TransportMonitor monitor() {
        return monitor;
    }

    public void sample(long nowMillis) {
        monitor.sample(nowMillis);
    }
}
