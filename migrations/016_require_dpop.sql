-- A credential may require every public token it issues to be DPoP-bound (RFC 9449).
ALTER TABLE credentials ADD COLUMN IF NOT EXISTS require_dpop boolean NOT NULL DEFAULT false;
