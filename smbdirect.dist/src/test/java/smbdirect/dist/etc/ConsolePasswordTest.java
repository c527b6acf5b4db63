package smbdirect.dist.etc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ConsolePasswordTest {

    private final ConsolePassword passwords = new ConsolePassword(new SecureRandom());

    @Test
    void hashIsTheFelixWebConsoleSaltedFormat() {
        // expected value computed independently (Python hashlib: 1000 x SHA-256 over salt + password)
        assertEquals("{sha-256}0011223344556677-1000-/wwdufUgIJOKvmAL+tL6n8vnTExvrBI3hMo83MdfehU=",
                ConsolePassword.hash("s3cret", "0011223344556677", 1000));
        String stored = passwords.hash("s3cret");
        assertTrue(stored.matches("\\{sha-256\\}[0-9a-f]{16}-1000-[A-Za-z0-9+/]{43}="), stored);
        assertNotEquals(stored, passwords.hash("s3cret"), "a new salt each time");
        assertTrue(ConsolePassword.matches(stored, "s3cret"));
        assertFalse(ConsolePassword.matches(stored, "s3cret "));
    }

    @Test
    void theFelixDefaultIsRecognisedInEveryForm() {
        assertTrue(ConsolePassword.isDefault(null));
        assertTrue(ConsolePassword.isDefault(""));
        assertTrue(ConsolePassword.isDefault("admin"));
        assertTrue(ConsolePassword.isDefault("{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg="), "Felix's built-in hash");
        assertTrue(ConsolePassword.isDefault(passwords.hash("admin")));
        assertFalse(ConsolePassword.isDefault(passwords.hash("s3cret")));
        assertFalse(ConsolePassword.isDefault("s3cret"));
        assertFalse(ConsolePassword.isHashed("s3cret"));
        assertTrue(ConsolePassword.isHashed("{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg="));
    }

    @Test
    void generatedPasswordsAreLongUnambiguousAndDifferent() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String p = passwords.generate();
            assertTrue(p.matches("([2-9a-km-zA-HJ-NP-Z]{5}-){3}[2-9a-km-zA-HJ-NP-Z]{5}"), p);
            assertTrue(seen.add(p), "repeated: " + p);
        }
    }
}
