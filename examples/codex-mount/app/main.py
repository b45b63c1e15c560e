print('hello from the app')
