package smbdirect.impl.transport;

import java.util.Map;
import java.util.Objects;

import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;

import smbdirect.api.rdma.RdmaProvider;

/**
 * An LDAP filter over the service properties of an {@code RdmaProvider} (the {@code provider.target}
 * attribute of the transport and of configured listeners). Immutable.
 */
public final class ProviderFilter {

    /** Matches every provider. */
    public static final ProviderFilter ANY = new ProviderFilter("(objectClass=*)", null);

    private final String text;
    private final Filter filter;

    private ProviderFilter(String text, Filter filter) {
        this.text = text;
        this.filter = filter;
    }

    /**
     * Parses {@code text}.
     *
     * @throws InvalidSyntaxException when it is not a valid LDAP filter
     */
    public static ProviderFilter parse(String text) throws InvalidSyntaxException {
        Objects.requireNonNull(text, "text");
        return new ProviderFilter(text, FrameworkUtil.createFilter(text));
    }

    /** Matches the providers whose {@code smbdirect.provider} is {@code name} (LDAP specials escaped). */
    public static ProviderFilter named(String name) {
        try {
            return parse("(" + RdmaProvider.PROVIDER_NAME + "=" + escape(name) + ")");
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("provider name " + name + " cannot be matched: " + e.getMessage(), e);
        }
    }

    /** {@code value} with the LDAP filter specials ({@code \ * ( )}) escaped, to match it literally. */
    public static String escape(String value) {
        StringBuilder b = new StringBuilder(value.length());
        for (char c : value.toCharArray()) {
            if (c == '\\' || c == '*' || c == '(' || c == ')') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    public boolean matches(Map<String, ?> properties) {
        return filter == null || filter.matches(properties);
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProviderFilter other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
