#!/bin/sh
export DATABASE_URL=postgres://app:Tq7vR2mX9pLw@db.internal:5432/app
psql "$DATABASE_URL"
