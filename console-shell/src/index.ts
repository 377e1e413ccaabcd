// An async boundary before anything else, so Module Federation can settle the shared singletons.
void import('./bootstrap.js');
