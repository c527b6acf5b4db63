package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativePlatformTest {

    private static final List<String> GLIBC_MAPS = List.of(
            "55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1311 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java",
            "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 2236 /usr/lib/x86_64-linux-gnu/libc.so.6",
            "7f1c2a400000-7f1c2a401000 rw-p 00000000 00:00 0 ",
            "7f1c2a5f0000-7f1c2a5f1000 r--p 00000000 08:01 2210 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "7ffd1b3f0000-7ffd1b411000 rw-p 00000000 00:00 0                          [stack]");

    private static final List<String> MUSL_MAPS = List.of(
            "5612a0e00000-5612a0e01000 r--p 00000000 00:2f 41 /opt/java/openjdk/bin/java",
            "7f3e4d000000-7f3e4d014000 r--p 00000000 00:2f 17 /lib/ld-musl-x86_64.so.1",
            "7ffd1b3f0000-7ffd1b411000 rw-p 00000000 00:00 0                          [stack]");

    @Test
    void glibcIsFoundFromItsMappedLibcAndLoader() {
        assertEquals(NativePlatform.GLIBC, NativePlatform.libcOf(GLIBC_MAPS));
        assertEquals(NativePlatform.GLIBC, NativePlatform.libcOf(List.of(
                "7f1c2a000000-7f1c2a028000 r-xp 00000000 08:01 2236 /lib64/libc-2.17.so")), "an older glibc's name");
    }

    @Test
    void muslIsFoundFromItsLoaderEvenBesideAGlibcCompatibilityLayer() {
        assertEquals(NativePlatform.MUSL, NativePlatform.libcOf(MUSL_MAPS));
        List<String> withShim = new java.util.ArrayList<>(MUSL_MAPS);
        withShim.add(1, "7f3e4c000000-7f3e4c004000 r--p 00000000 00:2f 18 /lib/ld-linux-x86-64.so.2");
        assertEquals(NativePlatform.MUSL, NativePlatform.libcOf(withShim));
    }

    @Test
    void noKnownLibraryMappedIsAnUnknownCLibrary() {
        String libc = NativePlatform.libcOf(List.of("7ffd1b3f0000-7ffd1b411000 rw-p 00000000 00:00 0 [stack]"));
        assertTrue(libc.startsWith("an unknown C library"), libc);
    }

    @Test
    void x86_64LinuxWithGlibcIsAccepted(@TempDir Path dir) throws IOException {
        Path maps = Files.write(dir.resolve("maps"), GLIBC_MAPS);
        assertNull(NativePlatform.of("Linux", "amd64", maps).rdmaCoreRefusal());
        assertNull(NativePlatform.of("Linux", "x86_64", maps).rdmaCoreRefusal());
    }

    @Test
    void anotherArchitectureIsRefusedNamingItAndWhatIsSupported(@TempDir Path dir) throws IOException {
        Path maps = Files.write(dir.resolve("maps"), List.of(
                "ffff8a000000-ffff8a190000 r-xp 00000000 08:01 2236 /usr/lib/aarch64-linux-gnu/libc.so.6"));
        String why = NativePlatform.of("Linux", "aarch64", maps).rdmaCoreRefusal();
        assertEquals("its C structure layouts (ibv_context with its pthread_mutex_t, ibv_wc, ibv_send_wr, ...) are "
                + "those of Linux x86-64 (amd64) with glibc; this JVM runs on Linux aarch64 with glibc: use backend "
                + "disni (its native library is compiled on the machine)", why);
        assertTrue(NativePlatform.of("Linux", "ppc64le", maps).rdmaCoreRefusal().contains("Linux ppc64le with glibc"));
    }

    @Test
    void muslIsRefusedNamingIt(@TempDir Path dir) throws IOException {
        Path maps = Files.write(dir.resolve("maps"), MUSL_MAPS);
        String why = NativePlatform.of("Linux", "amd64", maps).rdmaCoreRefusal();
        assertTrue(why.contains("are those of Linux x86-64 (amd64) with glibc; this JVM runs on Linux amd64 with musl:"),
                why);
        assertEquals(1, why.lines().count(), "one line");
    }

    @Test
    void anUnreadableMapsFileIsRefusedAsAnUnknownCLibrary(@TempDir Path dir) {
        String why = NativePlatform.of("Linux", "amd64", dir.resolve("absent")).rdmaCoreRefusal();
        assertTrue(why.contains("this JVM runs on Linux amd64 with an unknown C library ("), why);
        assertTrue(why.contains("absent unreadable"), why);
    }

    @Test
    void anotherOperatingSystemIsRefused(@TempDir Path dir) throws IOException {
        Path maps = Files.write(dir.resolve("maps"), GLIBC_MAPS);
        assertTrue(NativePlatform.of("FreeBSD", "amd64", maps).rdmaCoreRefusal()
                .contains("this JVM runs on FreeBSD amd64 with glibc"));
    }

    @Test
    void thisJvmsCLibraryIsReadFromItsOwnMappings() {
        assumeTrue(System.getProperty("os.name").equals("Linux"), "the C library is read from Linux's /proc");
        NativePlatform here = NativePlatform.current();
        assertTrue(here.libc().equals(NativePlatform.GLIBC) || here.libc().equals(NativePlatform.MUSL), here.libc());
        assertEquals(here.libc().equals(NativePlatform.GLIBC) && here.amd64(), here.rdmaCoreRefusal() == null,
                String.valueOf(here.rdmaCoreRefusal()));
    }
}
