/**
 * Virtual time for tests ({@link smbdirect.testsupport.time.VirtualTime}): a clock that moves only
 * when a test moves it, and timers that run on the test's thread when it passes their due time. The
 * engine's tests use it behind their {@code ManualScheduler}, the test kit behind its public
 * {@code VirtualClock} (the kit's bundle carries this package privately).
 *
 * <p>Depends on nothing but the JDK, so that a bundle may carry it.
 */
package smbdirect.testsupport.time;
