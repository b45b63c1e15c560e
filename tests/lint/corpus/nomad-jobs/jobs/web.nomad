job "web" {
  group "web" {
    task "nginx" {
      driver = "docker"
      config {
        image   = "nginx:1.27"
        volumes = ["local/site:/usr/share/nginx/html:ro"]
        ports   = ["http"]
      }
    }
  }
}
