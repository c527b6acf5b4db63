package smbdirect.ops.console;

import java.io.IOException;
import java.net.URL;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The {@link StatusPage} as a javax servlet Web Console plugin: what Karaf's Web Console (Felix
 * Web Console 4, javax) runs. Registered by {@link StatusPlugins} where no Jakarta Felix Web
 * Console is installed. The console finds the page's resources through {@link #getResource(String)}.
 *
 * <p>Thread-safe as the page is.
 */
public final class StatusPlugin extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient StatusPage page;

    StatusPlugin(StatusPage page) {
        this.page = page;
    }

    /** The page's static resources, found by the Web Console: {@code /smbdirect/res/NAME}. */
    public URL getResource(String path) {
        return page.getResource(path);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.get(exchange(request, response));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.post(exchange(request, response));
    }

    private static StatusPage.Exchange exchange(HttpServletRequest q, HttpServletResponse r) {
        return new StatusPage.ServletExchange(q::getPathInfo, q::getParameter, q::getParameterValues, q::getHeader,
                q::getAttribute, q::getContextPath, q::getServletPath, q::getRequestURI, r::setContentType,
                r::setCharacterEncoding, r::setHeader, r::getWriter, r::getOutputStream, r::sendError, r::sendRedirect);
    }
}
