package dev.sluice.demo;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** The paper's three JSON APIs (about 16 KB, 5 KB and 7 KB), answered from pre-built buffers. */
final class DocumentServices {

    private DocumentServices() {}

    /** {@code GET /products}: a catalogue page (~16 KB); {@code GET /products/{id}}: a product (~16 KB). */
    static final class Products extends DemoService {
        private final JsonDocument catalogue = JsonDocument.load("products.json", "");
        private final JsonDocument product = JsonDocument.load("product.json", "{{id}}");

        Products() {
            super("products");
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (path.equals("/products") || path.equals("/products/")) {
                JsonReply.send(response, callback, 200, catalogue.whole());
                return true;
            }
            if (!path.startsWith("/products/") || path.indexOf('/', "/products/".length()) >= 0) {
                return false;
            }
            String id = path.substring("/products/".length());
            return sendOr404(product.expanded(id), "product", id, response, callback);
        }
    }

    /** {@code GET /customers/{id}}: a customer profile (~5 KB). */
    static final class Customers extends DemoService {
        private final JsonDocument customer = JsonDocument.load("customer.json", "{{id}}");

        Customers() {
            super("customers");
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (!path.startsWith("/customers/") || path.indexOf('/', "/customers/".length()) >= 0) {
                return false;
            }
            String id = path.substring("/customers/".length());
            return sendOr404(customer.expanded(id), "customer", id, response, callback);
        }
    }

    /** {@code GET /reviews[?product=ID]}: a page of reviews (~7 KB), of product 1001 by default. */
    static final class Reviews extends DemoService {
        static final String DEFAULT_PRODUCT = "1001";
        private final JsonDocument reviews = JsonDocument.load("reviews.json", "{{product}}");

        Reviews() {
            super("reviews");
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (!path.equals("/reviews") && !path.equals("/reviews/")) {
                return false;
            }
            String product = text(request, "product", DEFAULT_PRODUCT);
            Optional<ByteBuffer> body = reviews.expanded(product);
            if (body.isEmpty()) {
                throw new BadParameterException(
                        "product: '" + product + "' (expected: 1 to 40 letters, digits, '-' or '_')");
            }
            JsonReply.send(response, callback, 200, body.get());
            return true;
        }
    }

    private static boolean sendOr404(
            Optional<ByteBuffer> body, String what, String id, Response response, Callback callback) {
        if (body.isPresent()) {
            JsonReply.send(response, callback, 200, body.get());
        } else {
            JsonReply.error(response, callback, 404, "not_found", "no " + what + " '" + id + "'");
        }
        return true;
    }
}
