// The API reference, from this server's own OpenAPI document and Swagger UI files (no CDN).
SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
