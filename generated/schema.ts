/**
 * generated, do not edit: run `npm run generate`.
 * Source: the service OpenAPI document at {base_url}/docs/spec (snapshot: generated/openapi.json).
 */

export interface paths {
    "/auth/api-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange an API key pair for an access token and a refresh token. */
        post: operations["createApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/api-token/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange a refresh token for a new token response. */
        post: operations["refreshApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an identity request for a person.
         * @description A webhook follows approval or cancellation (requires a configured webhook URL and the Identity Actions subscription). E2002 means the request was created but the email failed: details.code and details.redirect_url are supplied.
         */
        post: operations["createIdentityRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/request/{access_request_code}/{identity_session_code}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Identity request details (status check and redirect URL retrieval). */
        get: operations["getIdentityRequest"];
        put?: never;
        post?: never;
        /** Cancel and delete the request. */
        delete: operations["deleteIdentityRequest"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/identity/response/{access_request_code}/{identity_session_code}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The identity response, after a successful webhook.
         * @description Verify each disclosure: recompute the hash with `_sd_alg` and the disclosure salt; it must equal an entry of `_sd`. The client must not accept the response once `exp` has elapsed.
         */
        get: operations["getIdentityResponse"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/credentials/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a source document; the service issues a signed verifiable credential. */
        post: operations["submitCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/credentials/verify/{credential_ref}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verify a credential previously issued by the caller. */
        get: operations["verifyCredential"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/credentials/file-data/{credential_ref}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The source file of a credential. */
        get: operations["getCredentialFileData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/credentials/revoke/{credential_ref}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a credential issued by the caller. */
        post: operations["revokeCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Current service status and version. */
        get: operations["getCurrentStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health check. */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    identityActions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * 'Identity Actions': sent when an identity request is approved or cancelled.
         * @description The client verifies X-Webhook-Signature, answers 200 OK, then calls GET /identity/response/... with access_token in X-Access-Token. Kinds of event, the complete payload, the HMAC algorithm, the signed content and retries are not shown by the spec.
         */
        post: operations["identityActionsWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Clients match on type or code, never on message. Every error carries type and code; some responses (401, 403, 429, 500) carry only those two. */
        ErrorObject: {
            message?: string;
            type: string;
            code: string;
            timestamp?: string;
            correlation_id?: string;
            details?: components["schemas"]["ErrorDetails"];
        };
        ErrorDetails: {
            /** @description Field name to message. */
            validation_errors?: {
                [key: string]: string;
            };
            /** @description On 409 for an identity request. */
            existing_code?: string;
            /** @description On E2002: the request exists. */
            code?: string;
            /** @description On E2002: the person can still finish here. */
            redirect_url?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The error of a 401, 403, 429 or 500, which may carry only type and code. */
        ErrorResponse: {
            error: components["schemas"]["ErrorObject"];
        };
        /** @description The error of every other status: message, type, code, timestamp and correlation_id, and details where the spec gives them. */
        FullErrorObject: components["schemas"]["ErrorObject"] & Record<string, never>;
        FullErrorResponse: {
            error: components["schemas"]["FullErrorObject"];
        };
        ApiTokenRequest: {
            client_id: string;
            client_secret: string;
        };
        RefreshTokenRequest: {
            refresh_token: string;
        };
        TokenResponse: {
            /** @description JWT for API authentication. */
            access_token?: string;
            refresh_token?: string;
            /** @description Seconds until the token expires. */
            expires_in?: number;
            /** @description RFC 2822 date of expiry. */
            expires?: string;
        };
        /** @description A flat array of claim keys (all optional), or an object whose keys are claim keys and whose values are null (optional) or {essential: true} (mandatory credential). Unrecognised keys are rejected. */
        Claims: string[] | {
            [key: string]: null | {
                /** @constant */
                essential: true;
            };
        };
        IdentityRequestInput: {
            first_name: string;
            last_name: string;
            /** @description The person's personal email address. */
            email: string;
            /** @description Personal mobile number, without country code. */
            phone: string;
            /** @description Country code of the phone number. */
            phone_country_code: number;
            /** @description Enumerated; allowed values not shown by the spec. */
            purpose: string;
            return_url: string;
            off_ramp_url: string;
            /** @description Comma-separated emails notified of results; described as optional. */
            results_emails: string;
            /** @description Email that gets a download link for source files; described as optional. */
            download_email: string;
            /** @description Hours the request stays valid; described as optional; unset means 24; 0 disables expiry. */
            expiry_hours: number;
            send_email?: boolean;
            /** @description Enumerated; needs prior enablement. */
            payment_via?: string;
            /** @description Enumerated; omission selects a default. */
            ruleset?: string;
            claims: components["schemas"]["Claims"];
        };
        IdentityRequestCreated: {
            /** @description Appears in the webhook. */
            access_request_code: string;
            /** @description Needed to retrieve results. */
            identity_session_code: string;
            /** @description Where to send the person. */
            redirect_url: string;
        };
        /** @description All fields are optional. */
        IdentityRequestDetails: {
            first_name?: string;
            last_name?: string;
            email?: string;
            phone?: string;
            phone_country_code?: number;
            purpose?: string;
            time_expires?: number;
            opened_at?: number;
            completed_at?: number;
            request_code?: string;
            redirect_url?: string;
            send_email?: boolean;
        };
        Disclosure: {
            claim: string;
            salt?: string;
            /** @description string, object or array; "claim value types are not uniform": boolean claims such as acmeidentity.valid may disclose a boolean, and a number or null is accepted too. */
            value?: string | {
                [key: string]: unknown;
            } | unknown[] | boolean | number | null;
        };
        /** @description Further `{credential}.credential_jwt` fields are returned the same way as acmeidentity.credential_jwt. */
        IdentityResponseData: {
            ref?: string;
            iss?: string;
            sub?: string;
            nbf?: number;
            exp?: number;
            iat?: number;
            jti?: string;
            _sd?: string[];
            _sd_alg?: string;
            disclosures?: components["schemas"]["Disclosure"][];
            disclosures_missing?: string[];
            "acmeidentity.credential_jwt"?: string;
            request_code?: string;
            partially_complete?: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description name, description and time_expires are required except for type acicncchc. */
        CredentialInput: {
            /** @description Credential type; only acicncchc is named, more will be added. */
            type: string;
            /** @description Shape <uid>/<uid>: two parts without / or whitespace. */
            person_ref: string;
            name?: string;
            description?: string;
            /** @description Raw credential data specific to the type; its structure for acicncchc follows an external result specification. */
            metadata?: {
                [key: string]: unknown;
            };
            /** @description Base64 of a PNG, JPG or PDF of at most 5 MB. */
            file_data: string;
            /** @description The source file name, with the extension of its content (png, jpg or jpeg, pdf; any case) and no path. */
            file_name: string;
            issuer_name: string;
            /**
             * Format: uri
             * @description URL of the issuer (http or https).
             */
            issuer_url: string;
            issuer_ref: string;
            time_expires?: number;
        };
        CredentialSubmitted: {
            /** @description Opaque; never parsed or built. */
            credential_ref: string;
        };
        /** @description The decoded raw verifiable credential JSON. */
        VerifiableCredential: {
            [key: string]: unknown;
        };
        CredentialFileData: {
            file_data: string;
        };
        CredentialRevoked: {
            revoked: boolean;
        };
        MessageData: {
            message?: string;
        };
        StatusCurrent: {
            /** @enum {string} */
            status?: "operational" | "degraded";
            timestamp?: number;
            environment?: string;
            components?: {
                api?: {
                    status?: string;
                    version?: string;
                };
                database?: {
                    status?: string;
                    message?: string;
                };
            };
            maintenance_mode?: boolean;
        };
        StatusHealth: {
            /** @enum {string} */
            status?: "healthy" | "degraded";
            timestamp?: number;
            /** @enum {string} */
            database?: "connected" | "error";
        };
        IdentityActionsEvent: {
            /** @description Equals the code returned at creation. */
            access_request_code: string;
            /** @description JWT with the claims access_token and access_request_code; sent as X-Access-Token. */
            access_token: string;
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiTokenRequest"];
            };
        };
        responses: {
            /** @description Token response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TokenResponse"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    refreshApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefreshTokenRequest"];
            };
        };
        responses: {
            /** @description Token response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TokenResponse"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createIdentityRequest: {
        parameters: {
            query?: never;
            header: {
                /** @description Tenant ID issued by the operator. Format not shown by the spec. */
                "X-Tenant-Id": string;
                /** @description Time the request was made. Format not shown by the spec; the SDK sends UNIX seconds by default. */
                "X-Request-Timestamp": string;
                /** @description Caller-chosen ID for tracking; should be logged. */
                "X-Correlation-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IdentityRequestInput"];
            };
        };
        responses: {
            /** @description Request created. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["IdentityRequestCreated"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflict (E1006 CONFLICT). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getIdentityRequest: {
        parameters: {
            query?: never;
            header: {
                /** @description Tenant ID issued by the operator. Format not shown by the spec. */
                "X-Tenant-Id": string;
                /** @description Time the request was made. Format not shown by the spec; the SDK sends UNIX seconds by default. */
                "X-Request-Timestamp": string;
                /** @description Caller-chosen ID for tracking; should be logged. */
                "X-Correlation-Id"?: string;
            };
            path: {
                /** @description Code returned at creation; appears in the webhook. */
                access_request_code: string;
                /** @description The original request code, returned at creation. */
                identity_session_code: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Identity request details. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["IdentityRequestDetails"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteIdentityRequest: {
        parameters: {
            query?: never;
            header: {
                /** @description Tenant ID issued by the operator. Format not shown by the spec. */
                "X-Tenant-Id": string;
                /** @description Time the request was made. Format not shown by the spec; the SDK sends UNIX seconds by default. */
                "X-Request-Timestamp": string;
                /** @description Caller-chosen ID for tracking; should be logged. */
                "X-Correlation-Id"?: string;
            };
            path: {
                /** @description Code returned at creation; appears in the webhook. */
                access_request_code: string;
                /** @description The original request code, returned at creation. */
                identity_session_code: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["MessageData"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getIdentityResponse: {
        parameters: {
            query?: never;
            header: {
                /** @description Tenant ID issued by the operator. Format not shown by the spec. */
                "X-Tenant-Id": string;
                /** @description Time the request was made. Format not shown by the spec; the SDK sends UNIX seconds by default. */
                "X-Request-Timestamp": string;
                /** @description Caller-chosen ID for tracking; should be logged. */
                "X-Correlation-Id"?: string;
                /** @description JWT containing the claims access_token and access_request_code, exactly as sent by the webhook. */
                "X-Access-Token": string;
            };
            path: {
                /** @description Code from the approval webhook. */
                access_request_code: string;
                /** @description The original request code. */
                identity_session_code: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Identity response. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["IdentityResponseData"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Insufficient permission (E1004 UNAUTHORIZED); may carry only type and code. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Internal error (E2001, E2002 email delivery, E2003 database); may carry only type and code. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    submitCredential: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialInput"];
            };
        };
        responses: {
            /** @description Credential issued. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CredentialSubmitted"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflict (E1006 CONFLICT). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description File larger than 5 MB; the error code is not part of the contract. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Validation error; the error code is not part of the contract. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    verifyCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Opaque reference returned by submit, appended exactly as returned, without percent-encoding. Never parsed or constructed by the client. */
                credential_ref: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The decoded raw verifiable credential JSON. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["VerifiableCredential"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Credential revoked; the error code is not part of the contract. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Precondition failed: E1008, or the credential family E1009 expired, E1010 revoked, E1011 pending acceptance, E1012 verification failed. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCredentialFileData: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Opaque reference returned by submit, appended exactly as returned, without percent-encoding. Never parsed or constructed by the client. */
                credential_ref: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The source file, base64. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CredentialFileData"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Credential revoked; the error code is not part of the contract. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Precondition failed: E1008, or the credential family E1009 expired, E1010 revoked, E1011 pending acceptance, E1012 verification failed. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revokeCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Opaque reference returned by submit, appended exactly as returned, without percent-encoding. Never parsed or constructed by the client. */
                credential_ref: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CredentialRevoked"];
                        correlation_id: string;
                        meta?: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Invalid parameters (E1001 VALIDATION_ERROR with details.validation_errors, or E1002 INVALID_REQUEST). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Missing or invalid authentication (E1003 AUTHENTICATION_FAILED); may carry only type and code. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (E1005 NOT_FOUND). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Credential revoked; the error code is not part of the contract. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Precondition failed: E1008, or the credential family E1009 expired, E1010 revoked, E1011 pending acceptance, E1012 verification failed. */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FullErrorResponse"];
                };
            };
            /** @description Too many requests (E1007 RATE_LIMIT_EXCEEDED); may carry only type and code. */
            429: {
                headers: {
                    /** @description Seconds (or an HTTP date) to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCurrentStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Status record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusCurrent"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Health record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusHealth"];
                };
            };
            /** @description Service unavailable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    identityActionsWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description HMAC of the request, verified before the payload is trusted. */
                "X-Webhook-Signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IdentityActionsEvent"];
            };
        };
        responses: {
            /** @description Received. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
