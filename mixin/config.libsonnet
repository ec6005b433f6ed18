{ _config+:: { ssdSelector: '', ssdExporterSelector: 'job="ssd_exporter"' } }
