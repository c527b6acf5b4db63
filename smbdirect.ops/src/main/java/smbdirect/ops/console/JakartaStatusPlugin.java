package smbdirect.ops.console;

import java.io.IOException;
import java.net.URL;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The {@link StatusPage} as a Jakarta Servlet Web Console plugin: what the Felix Web Console 5
 * runs (the appliance runtime's console). Registered by {@link StatusPlugins} where the Jakarta
 * Servlet API is there. The page serves its own resources ({@code res/NAME} requests reach it
 * undecorated, like its {@code .json}).
 *
 * <p>Thread-safe as the page is.
 */
public final class JakartaStatusPlugin extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient StatusPage page;

    JakartaStatusPlugin(StatusPage page) {
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
