// A remote is used through its exposed `./app`; this entry only gives the build an async boundary.
void import('./app.js');
