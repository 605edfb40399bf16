-- One table for every id that may be used once: client assertions' jtis (private_key_jwt) and
-- DPoP proofs' jtis. Each is held until its proof expires, by whom it was presented
-- (`client:<id>` or `dpop:<key thumbprint>`), in the space of the request.
ALTER TABLE client_assertion_jtis RENAME TO used_once_ids;
ALTER TABLE used_once_ids RENAME COLUMN client_id TO holder;
ALTER TABLE used_once_ids RENAME COLUMN jti_hash TO id_hash;
ALTER INDEX client_assertion_jtis_expiry_idx RENAME TO used_once_ids_expiry_idx;
ALTER TABLE used_once_ids RENAME CONSTRAINT client_assertion_jtis_pkey TO used_once_ids_pkey;
