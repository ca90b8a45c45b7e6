DROP TABLE console_signin_links;
DROP TABLE console_sessions;
