package smbdirect.example.fileserver.internal.share;

/**
 * A QUERY_DIRECTORY search pattern ([MS-FSCC] 2.1.4.4, the rules of FsRtlIsNameInExpression):
 * {@code *} any run of characters, {@code ?} one character, and the DOS wildcards {@code <}
 * (DOS_STAR: any run not taking the name's last period), {@code >} (DOS_QM: one character, or
 * none at a period or the end) and {@code "} (DOS_DOT: a period, or nothing at the end). Other
 * characters match themselves exactly: the served file system is case-sensitive (Linux), and
 * FileFsAttributeInformation says so (FILE_CASE_SENSITIVE_SEARCH).
 */
final class Wildcard {

    private final String pattern;
    private final boolean literal;

    Wildcard(String pattern) {
        this.pattern = pattern == null || pattern.isEmpty() ? "*" : pattern;
        this.literal = this.pattern.chars().noneMatch(c -> c == '*' || c == '?' || c == '<' || c == '>' || c == '"');
    }

    String pattern() {
        return pattern;
    }

    /** Whether the pattern names one file exactly (no wildcard). */
    boolean literal() {
        return literal;
    }

    boolean matches(String name) {
        if (literal) {
            return pattern.equals(name);
        }
        if ("*".equals(pattern)) {
            return true;
        }
        Boolean[][] memo = new Boolean[pattern.length() + 1][name.length() + 1];
        return match(name, name.lastIndexOf('.'), 0, 0, memo);
    }

    private boolean match(String name, int lastDot, int p, int n, Boolean[][] memo) {
        if (memo[p][n] != null) {
            return memo[p][n];
        }
        boolean r;
        int len = name.length();
        if (p == pattern.length()) {
            r = n == len;
        } else {
            char c = pattern.charAt(p);
            switch (c) {
                case '*' -> r = match(name, lastDot, p + 1, n, memo) || (n < len && match(name, lastDot, p, n + 1, memo));
                case '<' -> r = match(name, lastDot, p + 1, n, memo)
                        || (n < len && n != lastDot && match(name, lastDot, p, n + 1, memo));
                case '?' -> r = n < len && match(name, lastDot, p + 1, n + 1, memo);
                case '>' -> r = n < len && name.charAt(n) != '.'
                        ? match(name, lastDot, p + 1, n + 1, memo)
                        : match(name, lastDot, p + 1, n, memo);
                case '"' -> r = (n < len && name.charAt(n) == '.' && match(name, lastDot, p + 1, n + 1, memo))
                        || (n == len && match(name, lastDot, p + 1, n, memo));
                default -> r = n < len && name.charAt(n) == c && match(name, lastDot, p + 1, n + 1, memo);
            }
        }
        memo[p][n] = r;
        return r;
    }
}
